#!/usr/bin/env node
// Pull-mode workers: the wall time of N changes on a bare remote taken up by 1, 2 and 3
// `ralphtool worker --from origin`, each on a clone of its own (all on this machine), with an
// agent that sleeps a fixed time per story (the fake agent: sleep, tick the story's task,
// COMPLETE). What is measured is how the claim protocol shares the changes out: the ideal is
// ceil(N / workers) changes' time per worker. Every story must be started exactly once, or the
// benchmark stops. Runs the BUILT CLI (dist/cli/main.js).
//
//   node bench/workers.mjs [--changes 4] [--stories 2] [--sleep-ms 2000] [--workers 1,2,3]
//                          [--rounds 1] [--cli path/to/dist/cli/main.js]
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { benchEnv, git } from './lib/fixture-repo.mjs';
import { median, table } from './lib/stats.mjs';
import { ROOT, cliPath, option } from './lib/args.mjs';
import { loadWatch } from './lib/load.mjs';

const fakeAgent = path.join(ROOT, 'test/fixtures/agents/fake-agent.mjs');
const cli = cliPath();
const changeCount = Number(option('changes', '4'));
const stories = Number(option('stories', '2'));
const sleepMs = Number(option('sleep-ms', '2000'));
const rounds = Number(option('rounds', '1'));
const counts = option('workers', '1,2,3').split(',').map(Number);
const log = (text) => process.stderr.write(`${text}\n`);
if (!existsSync(cli)) {
  log(`${cli} is missing: build first (npm run build)`);
  process.exit(1);
}

const work = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-bench-workers-'));
const home = path.join(work, 'home');
mkdirSync(home);
const env = benchEnv(home);
const changes = Array.from({ length: changeCount }, (_, i) => `change-${i + 1}`);
const scenarioFile = path.join(work, 'scenario.json');
const story = [{ sleep: sleepMs }, { tick: 'all' }, { signal: 'COMPLETE' }];
writeFileSync(
  scenarioFile,
  JSON.stringify({ changes: Object.fromEntries(changes.map((c) => [c, { '*': story }])) }),
);
const agentFlags = [
  '--agent',
  'command',
  '--agent-command',
  `'${process.execPath}' '${fakeAgent}'`,
];

const load = loadWatch();
try {
  const samples = new Map(counts.map((n) => [n, []]));
  for (let r = 0; r < rounds; r++) {
    for (const n of counts) {
      log(`round ${r + 1}/${rounds}: ${n} worker(s)`);
      samples.get(n).push(await measure(n, path.join(work, `r${r}-w${n}`)));
    }
  }
  const agentOnly = changeCount * stories * sleepMs;
  const rows = counts.map((n) => {
    const wall = median(samples.get(n));
    const ideal = Math.ceil(changeCount / n) * stories * sleepMs;
    return [
      `${n} worker${n === 1 ? '' : 's'}`,
      `${(wall / 1000).toFixed(1)} s`,
      `${(ideal / 1000).toFixed(1)} s`,
      `${(agentOnly / wall).toFixed(2)}×`,
    ];
  });
  process.stdout.write(
    `${table(['', 'wall (median)', 'agent time per worker (ideal)', 'speed-up vs agent time'], rows)}\n`,
  );
  process.stdout.write(
    `\n${changeCount} changes × ${stories} stories, agent ${sleepMs} ms per story, ${rounds} round(s), ${os.cpus().length} cores\n${load.report()}\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** One measurement: a fresh remote, `n` clones, `n` workers started together; the wall time. */
async function measure(n, dir) {
  mkdirSync(dir, { recursive: true });
  const origin = path.join(dir, 'origin.git');
  const seed = path.join(dir, 'seed');
  const logDir = path.join(dir, 'log');
  git(dir, env, 'init', '-q', '--bare', '-b', 'main', origin);
  git(dir, env, 'init', '-q', '-b', 'main', seed);
  identity(seed);
  for (const change of changes) {
    const folder = path.join(seed, 'openspec', 'changes', change);
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'proposal.md'), `# ${change}\n\nWhy: a benchmark.\n`);
    const tasks = Array.from(
      { length: stories },
      (_, i) => `## ${i + 1}. Story ${i + 1}\n\n- [ ] ${i + 1}.1 do it\n`,
    );
    writeFileSync(path.join(folder, 'tasks.md'), tasks.join('\n'));
  }
  git(seed, env, 'add', '-A');
  git(seed, env, 'commit', '-q', '-m', 'changes');
  git(seed, env, 'push', '-q', origin, 'main');
  const clones = Array.from({ length: n }, (_, i) => {
    const clone = path.join(dir, `worker-${i + 1}`);
    git(dir, env, 'clone', '-q', origin, clone);
    identity(clone);
    return clone;
  });
  const runEnv = { ...env, FAKE_AGENT_SCENARIO: scenarioFile, FAKE_AGENT_LOG_DIR: logDir };
  const started = performance.now();
  const codes = await Promise.all(clones.map((clone) => worker(clone, runEnv)));
  const wallMs = performance.now() - started;
  if (codes.some((c) => c !== 0)) throw new Error(`a worker exited with ${codes.join(', ')}`);
  const runs = readdirSync(logDir).filter((f) => f.startsWith('runs-'));
  const once = runs.every((f) => readFileSync(path.join(logDir, f), 'utf8') === '.');
  if (runs.length !== changeCount * stories || !once) {
    throw new Error(`stories were not started exactly once each: ${runs.join(', ')}`);
  }
  return wallMs;
}

function identity(repo) {
  git(repo, env, 'config', 'user.name', 'Bench');
  git(repo, env, 'config', 'user.email', 'bench@example.com');
  git(repo, env, 'config', 'commit.gpgsign', 'false');
}

function worker(clone, runEnv) {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [cli, 'worker', '--from', 'origin', ...agentFlags, '--json'],
      { cwd: clone, env: runEnv, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr = (stderr + chunk).slice(-4000);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) log(stderr);
      resolve(code);
    });
  });
}
