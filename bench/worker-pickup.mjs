#!/usr/bin/env node
// A worker's pick-up of the next change: one `ralphtool worker --from origin --json` takes up
// --changes changes of one story each (the fake agent ticks the task and says COMPLETE at once);
// the pick-up is the time from one change's `run.finished` to the next change's first
// `story.started` (the look at the remote, the claim, the run's start). Side by side, in the same
// round on the same remote: the same change started by hand in a clone of its own,
// `ralphtool run <change> --push origin` (node's start, the claim, the run's start: the process's
// spawn to its first `story.started`). Medians with min–max. Runs the BUILT CLI.
//
//   node bench/worker-pickup.mjs [--rounds 3] [--changes 4] [--cli path/to/dist/cli/main.js]
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { benchEnv, git } from './lib/fixture-repo.mjs';
import { median, ratio, spread, table } from './lib/stats.mjs';
import { ROOT, cliPath, option } from './lib/args.mjs';
import { loadWatch } from './lib/load.mjs';

const fakeAgent = path.join(ROOT, 'test/fixtures/agents/fake-agent.mjs');
const cli = cliPath();
const rounds = Number(option('rounds', '3'));
const changeCount = Number(option('changes', '4'));
const log = (text) => process.stderr.write(`${text}\n`);
if (!existsSync(cli)) {
  log(`${cli} is missing: build first (npm run build)`);
  process.exit(1);
}
if (changeCount < 2) {
  log('--changes must be 2 or more: a pick-up is the step from one change to the next');
  process.exit(2);
}

const work = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-bench-pickup-'));
const home = path.join(work, 'home');
mkdirSync(home);
const env = benchEnv(home);
const changes = Array.from({ length: changeCount }, (_, i) => `change-${i + 1}`);
const byHandChange = 'by-hand';
const scenarioFile = path.join(work, 'scenario.json');
writeFileSync(scenarioFile, JSON.stringify({ '*': [{ tick: 'all' }, { signal: 'COMPLETE' }] }));
const runEnv = { ...env, FAKE_AGENT_SCENARIO: scenarioFile };
const agentFlags = [
  '--agent',
  'command',
  '--agent-command',
  `'${process.execPath}' '${fakeAgent}'`,
];

const load = loadWatch();
try {
  const pickUps = [];
  const byHand = [];
  for (let r = 0; r < rounds; r++) {
    const ways = r % 2 === 0 ? ['worker', 'by hand'] : ['by hand', 'worker'];
    for (const way of ways) {
      log(`round ${r + 1}/${rounds}: ${way}`);
      // Each way its own remote: a worker takes up every change with work left it finds.
      const dir = path.join(work, `round-${r + 1}`, way === 'worker' ? 'worker' : 'by-hand');
      const origin = makeRemote(dir, way === 'worker' ? changes : [byHandChange]);
      const clone = cloneOf(origin, path.join(dir, 'clone'));
      if (way === 'worker') pickUps.push(...(await workerPickUps(clone)));
      else byHand.push(await byHandStart(clone));
    }
  }
  const rows = [
    ['worker: one change → the next', spread(pickUps), ratio(median(pickUps), median(byHand))],
    ['by hand: run <change> --push origin', spread(byHand), '1.00×'],
  ];
  process.stdout.write(
    `${table(['', 'to the first story.started, median (min–max)', 'vs by hand'], rows)}\n\n` +
      `${pickUps.length} pick-ups and ${byHand.length} starts by hand, ${rounds} rounds, ` +
      `${changeCount} changes of one story, an agent that answers at once\n${load.report()}\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** A bare remote holding `names`' changes on `main`. */
function makeRemote(dir, names) {
  mkdirSync(dir, { recursive: true });
  const origin = path.join(dir, 'origin.git');
  const seed = path.join(dir, 'seed');
  git(dir, env, 'init', '-q', '--bare', '-b', 'main', origin);
  git(dir, env, 'init', '-q', '-b', 'main', seed);
  identity(seed);
  for (const change of names) {
    const folder = path.join(seed, 'openspec', 'changes', change);
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'proposal.md'), `# ${change}\n\nWhy: a benchmark.\n`);
    writeFileSync(path.join(folder, 'tasks.md'), '## 1. Story 1\n\n- [ ] 1.1 do it\n');
  }
  git(seed, env, 'add', '-A');
  git(seed, env, 'commit', '-q', '-m', 'changes');
  git(seed, env, 'push', '-q', origin, 'main');
  return origin;
}

function cloneOf(origin, clone) {
  git(path.dirname(clone), env, 'clone', '-q', origin, clone);
  identity(clone);
  return clone;
}

function identity(repo) {
  git(repo, env, 'config', 'user.name', 'Bench');
  git(repo, env, 'config', 'user.email', 'bench@example.com');
  git(repo, env, 'config', 'commit.gpgsign', 'false');
}

/** The worker's pick-ups: each change's first story.started after the previous run.finished. */
async function workerPickUps(clone) {
  const { events } = await ralph(clone, ['worker', '--from', 'origin', '--json', ...agentFlags]);
  const found = [];
  let finishedAt = null;
  for (const e of events) {
    if (e.type === 'run.finished') finishedAt = Date.parse(e.ts);
    if (e.type === 'story.started' && finishedAt !== null) {
      found.push(Date.parse(e.ts) - finishedAt);
      finishedAt = null;
    }
  }
  if (found.length < changeCount - 1) {
    throw new Error(`the worker picked up ${found.length + 1} changes, expected ${changeCount}`);
  }
  return found;
}

/** `run by-hand --push origin` in a clone: the spawn to the first story.started. */
async function byHandStart(clone) {
  const spawnedAt = Date.now();
  const { events } = await ralph(clone, [
    'run',
    byHandChange,
    '--push',
    'origin',
    '--json',
    '--on-complete',
    'keep',
    ...agentFlags,
  ]);
  const started = events.find((e) => e.type === 'story.started');
  if (started === undefined) throw new Error('the run by hand started no story');
  return Date.parse(started.ts) - spawnedAt;
}

function ralph(cwd, args) {
  return new Promise((resolve, reject) => {
    const began = performance.now();
    const child = spawn(process.execPath, [cli, ...args], {
      cwd,
      env: runEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr = (stderr + c).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) => {
      if (code !== 0) {
        reject(new Error(`ralphtool ${args[0]} exited with ${code}: ${stderr}`));
        return;
      }
      const events = stdout
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l));
      resolve({ events, ms: performance.now() - began });
    });
  });
}
