#!/usr/bin/env node
// Several changes at once: `ralphtool run a b c --parallel 3` against three `run <c> --worktree`
// one after another, with an agent that answers at once (the fake agent ticks the story's task
// and says COMPLETE), so what is measured is ralphtool and git. Alternating order, medians with
// min–max; the ralphtool process's own CPU time (user + system, /usr/bin/time) says whether the
// orchestrator is the bottleneck. Runs the BUILT CLI (dist/cli/main.js).
//
//   node bench/parallel-runs.mjs [--rounds 5] [--stories 5] [--cli path/to/dist/cli/main.js]
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { clearInterval, setInterval } from 'node:timers';
import { benchEnv, copyRepo, git } from './lib/fixture-repo.mjs';
import { median, table } from './lib/stats.mjs';
import { ROOT, cliPath, option } from './lib/args.mjs';
import { loadWatch } from './lib/load.mjs';

const fakeAgent = path.join(ROOT, 'test/fixtures/agents/fake-agent.mjs');
const CHANGES = ['alpha', 'beta', 'gamma'];
const CLK_TCK = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;

const cli = cliPath();
const rounds = Number(option('rounds', '5'));
const stories = Number(option('stories', '5'));
const log = (text) => process.stderr.write(`${text}\n`);
if (!existsSync(cli)) {
  log(`${cli} is missing: build first (npm run build)`);
  process.exit(1);
}

const work = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-bench-many-'));
const home = path.join(work, 'home');
mkdirSync(home);
const env = benchEnv(home);
const scenarioFile = path.join(work, 'scenario.json');
writeFileSync(scenarioFile, JSON.stringify({ '*': [{ tick: 'all' }, { signal: 'COMPLETE' }] }));
const agentFlags = [
  '--agent',
  'command',
  '--agent-command',
  `'${process.execPath}' '${fakeAgent}'`,
];
const runEnv = { ...env, FAKE_AGENT_SCENARIO: scenarioFile };

const load = loadWatch();
try {
  const template = makeRepo(path.join(work, 'template'));
  const samples = { parallel: [], sequential: [] };
  for (let r = 0; r < rounds; r++) {
    // Alternating which goes first, so that a warming cache or a neighbour's load is shared.
    const order = r % 2 === 0 ? ['parallel', 'sequential'] : ['sequential', 'parallel'];
    for (const kind of order) {
      log(`round ${r + 1}/${rounds}: ${kind}`);
      samples[kind].push(
        await inCopy(template, (repo) => (kind === 'parallel' ? parallel(repo) : sequential(repo))),
      );
    }
  }
  const row = (kind) => {
    const s = samples[kind];
    const wall = s.map((x) => x.wallMs);
    const cpu = s.map((x) => x.cpuMs);
    return [
      kind === 'parallel' ? `run a b c --parallel 3` : `3 × run --worktree`,
      range(wall),
      range(cpu),
      `${(median(cpu) / median(wall)).toFixed(2)}`,
    ];
  };
  process.stdout.write(
    `${table(['', 'wall (median, min–max)', 'ralphtool CPU', 'CPU / wall'], [row('parallel'), row('sequential')])}\n`,
  );
  process.stdout.write(
    `\n${CHANGES.length} changes × ${stories} stories, ${rounds} rounds, ${os.cpus().length} cores\n${load.report()}\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

function range(values) {
  const fmt = (v) => `${(v / 1000).toFixed(2)} s`;
  return `${fmt(median(values))} (${fmt(Math.min(...values))}–${fmt(Math.max(...values))})`;
}

/**
 * One ralphtool process: its wall time and its own CPU time (user + system from
 * /proc/<pid>/stat, read every 20 ms until it exits: the agents and git are other processes
 * and do not count). The last 20 ms before the exit may be missed.
 */
async function timed(args, cwd) {
  const started = process.hrtime.bigint();
  const child = spawn(process.execPath, [cli, ...args], {
    cwd,
    env: runEnv,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stdout.resume(); // the events are not looked at, only drained
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  let ticks = 0;
  const sample = () => {
    try {
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      ticks = Number(fields[11]) + Number(fields[12]); // utime, stime (fields 14 and 15)
    } catch {
      // gone already
    }
  };
  const sampler = setInterval(sample, 20);
  const code = await new Promise((resolve) => child.on('exit', (c) => resolve(c)));
  clearInterval(sampler);
  const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
  if (code !== 0) throw new Error(`ralphtool ${args.join(' ')} failed (${code}): ${stderr}`);
  if (process.env.BENCH_DEBUG) log(`${args.slice(0, 3).join(' ')}: ${code} ${stderr}`);
  return { wallMs, cpuMs: (ticks / CLK_TCK) * 1000 };
}

async function parallel(repo) {
  const run = await timed(
    ['run', ...CHANGES, '--parallel', '3', '--on-complete', 'keep', '--json', ...agentFlags],
    repo,
  );
  check(repo);
  return run;
}

async function sequential(repo) {
  const total = { wallMs: 0, cpuMs: 0 };
  for (const change of CHANGES) {
    const run = await timed(
      ['run', change, '--worktree', '--on-complete', 'keep', '--json', ...agentFlags],
      repo,
    );
    total.wallMs += run.wallMs;
    total.cpuMs += run.cpuMs;
  }
  check(repo);
  return total;
}

/** A benchmark of broken runs would measure the wrong thing: each branch has every story. */
function check(repo) {
  for (const change of CHANGES) {
    const count = Number(git(repo, env, 'rev-list', '--count', `main..ralph/${change}`).trim());
    if (count !== stories + 1)
      throw new Error(`ralph/${change} has ${count} commits, not ${stories + 1}`);
  }
}

function makeRepo(dir) {
  mkdirSync(dir, { recursive: true });
  git(dir, env, 'init', '-q', '-b', 'main');
  git(dir, env, 'config', 'user.name', 'Bench');
  git(dir, env, 'config', 'user.email', 'bench@example.com');
  git(dir, env, 'config', 'commit.gpgsign', 'false');
  const write = (file, content) => {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), content);
  };
  write('README.md', '# bench project\n');
  for (const change of CHANGES) {
    write(`openspec/changes/${change}/proposal.md`, `# ${change}\n`);
    const tasks = Array.from(
      { length: stories },
      (_, i) => `## ${i + 1}. Story ${i + 1}\n\n- [ ] ${i + 1}.1 Do it\n`,
    );
    write(`openspec/changes/${change}/tasks.md`, tasks.join('\n'));
  }
  git(dir, env, 'add', '-A');
  git(dir, env, 'commit', '-q', '-m', 'initial commit');
  return dir;
}

async function inCopy(template, fn) {
  const repo = copyRepo(template, env);
  try {
    return await fn(repo);
  } finally {
    rmSync(repo, { recursive: true, force: true });
    rmSync(`${repo}.ralph`, { recursive: true, force: true });
  }
}
