#!/usr/bin/env node
// ralphtool's own time per story (wall time of `ralphtool run` minus the time spent inside
// the agent) on a small repository and on one of many files, next to the bare git commands
// the checkpoint engine runs for a story. Runs the BUILT CLI (dist/cli/main.js).
//
//   node bench/loop-overhead.mjs [--runs 3] [--stories 5] [--files 10000] [--git-reps 10]
//                                [--json results.json] [--cli path/to/dist/cli/main.js]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { bareGitTimes, wrapperFloor } from './lib/bare-git.mjs';
import { benchEnv, copyRepo, makeFixtureRepo } from './lib/fixture-repo.mjs';
import { countGitProcesses } from './lib/git-count.mjs';
import { loopMs, prepareAgent, timedRun } from './lib/ralph-run.mjs';
import { formatReport } from './lib/report.mjs';
import { median } from './lib/stats.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const fakeAgent = path.join(root, 'test/fixtures/agents/fake-agent.mjs');

function option(name, fallback) {
  const i = process.argv.indexOf(`--${name}`);
  if (i === -1) return fallback;
  const value = process.argv[i + 1];
  if (value === undefined) throw new Error(`--${name} needs a value`);
  return value;
}

// --cli: a copy of the build elsewhere, so a rebuild of dist/ cannot change it mid-benchmark.
const cli = path.resolve(option('cli', path.join(root, 'dist/cli/main.js')));
const runs = Number(option('runs', '3'));
const stories = Number(option('stories', '5'));
const largeFiles = Number(option('files', '10000'));
const gitReps = Number(option('git-reps', '10'));
const jsonOut = option('json', null);
const log = (text) => process.stderr.write(`${text}\n`);

if (!existsSync(cli)) {
  log(`${cli} is missing: build first (npm run build, or bench/run.sh)`);
  process.exit(1);
}

const work = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-bench-'));
const home = path.join(work, 'home');
mkdirSync(home);
const env = benchEnv(home);
const timesFile = path.join(work, 'agent-times.txt');

try {
  const sizes = [
    { name: 'small', files: 20 },
    { name: `${largeFiles} files`, files: largeFiles },
  ];
  for (const size of sizes) {
    log(`creating the ${size.name} repository…`);
    const name = `fixture-${size.files}`;
    size.template = makeFixtureRepo(work, name, { files: size.files, stories }, env);
  }
  const variants = [
    { name: 'accept only', failFirst: false },
    { name: 'fail once, then accept', failFirst: true },
  ].map((v) => ({
    ...v,
    agent: prepareAgent(work, { stories, failFirst: v.failFirst, fakeAgent }),
  }));
  const startup = median(
    Array.from({ length: runs }, () => {
      const started = process.hrtime.bigint();
      execFileSync(process.execPath, [cli, '--version'], { env, stdio: 'pipe' });
      return Number(process.hrtime.bigint() - started) / 1e6;
    }),
  );

  const results = [];
  for (const size of sizes) {
    for (const variant of variants) {
      results.push(await measureVariant(size, variant));
    }
    log(`${size.name}: timing bare git commands (${gitReps} repetitions)…`);
    await inCopy(size.template, async (repo) => {
      size.git = bareGitTimes(repo, env, gitReps);
      size.wrapperFloor = await wrapperFloor(cli, repo, env, gitReps);
    });
  }

  process.stdout.write(`${formatReport({ results, sizes, startup, runs, stories, gitReps })}\n`);
  if (jsonOut) {
    const git = Object.fromEntries(
      sizes.map((s) => [s.name, { ...s.git, wrapper: s.wrapperFloor }]),
    );
    writeFileSync(jsonOut, JSON.stringify({ runs, stories, startup, results, git }, null, 2));
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** `runs` timed runs of one variant on fresh copies of one repository, and one counting run. */
async function measureVariant(size, variant) {
  const samples = [];
  for (let r = 0; r < runs; r++) {
    log(`${size.name}, ${variant.name}: run ${r + 1}/${runs}`);
    await inCopy(size.template, async (repo) => {
      const run = await timedRun({ cli, repo, agent: variant.agent, env, timesFile });
      checkRun(run, variant.failFirst);
      const inLoop = loopMs(run.events, run.agentMs);
      samples.push({
        wallMs: run.wallMs,
        agentMs: run.agentMs,
        attempts: run.attempts,
        overheadPerStory: (run.wallMs - run.agentMs) / stories,
        loopPerStory: inLoop / stories,
        fixedMs: run.wallMs - run.agentMs - inLoop,
      });
    });
  }
  const gitCalls = await inCopy(size.template, (repo) =>
    countGitProcesses({ cli, repo, agent: variant.agent, env, timesFile, workDir: work }),
  );
  const pick = (key) => median(samples.map((s) => s[key]));
  return {
    repo: size.name,
    variant: variant.name,
    failFirst: variant.failFirst,
    attempts: pick('attempts'),
    wallMs: pick('wallMs'),
    agentMs: pick('agentMs'),
    overheadPerStoryMs: pick('overheadPerStory'),
    loopPerStoryMs: pick('loopPerStory'),
    fixedMs: pick('fixedMs'),
    gitCalls,
    samples,
  };
}

async function inCopy(template, fn) {
  const repo = copyRepo(template, env);
  try {
    return await fn(repo);
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

/** A benchmark of a broken run would measure the wrong thing: refuse it. */
function checkRun(run, failFirst) {
  const finished = run.events.at(-1);
  const checkpoints = run.events.filter((e) => e.type === 'checkpoint.created').length;
  const expected = failFirst ? stories * 2 : stories;
  if (finished?.type !== 'run.finished' || finished.outcome !== 'complete') {
    throw new Error(`the run did not complete: ${JSON.stringify(finished)}`);
  }
  if (checkpoints !== stories || run.attempts !== expected) {
    throw new Error(
      `expected ${stories} checkpoints and ${expected} attempts, got ${checkpoints} and ${run.attempts}`,
    );
  }
}
