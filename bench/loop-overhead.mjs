#!/usr/bin/env node
// What ralphtool costs per story beside the agent, against the protocol's floor (the fewest git
// commands a story needs) and against its own git sequence replayed bare — the three interleaved
// run by run, on a small repository and on one of many files, for stories accepted at once and
// stories that fail once. Then long changes (per-story cost must stay flat). Runs the BUILT CLI.
//
//   node bench/loop-overhead.mjs [--rounds 5] [--stories 10] [--files 10000 | 0] [--long 100,400]
//                                [--long-rounds 2] [--json results.json] [--cli dist/cli/main.js]
//                                [--calls]   (also print the git processes the loop started)
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';
import { CHANGE, benchWorkspace, copyRepo, makeFixtureRepo } from './lib/fixture-repo.mjs';
import { agentRunner, protocolFloor } from './lib/floor.mjs';
import { makeRecordingGit, readRecording } from './lib/git-record.mjs';
import { loopMs, prepareAgent, timedRun } from './lib/ralph-run.mjs';
import { replayRecording } from './lib/replay.mjs';
import { formatReport } from './lib/report.mjs';
import { ROOT, cliPath, option } from './lib/args.mjs';
import { loadWatch } from './lib/load.mjs';

const fakeAgent = path.join(ROOT, 'test/fixtures/agents/fake-agent.mjs');

const cli = cliPath();
const rounds = Number(option('rounds', '5'));
const stories = Number(option('stories', '10'));
const largeFiles = Number(option('files', '10000'));
const longChanges = option('long', '100,400')
  .split(',')
  .map(Number)
  .filter((n) => n > 0);
const longRounds = Number(option('long-rounds', '2'));
const jsonOut = option('json', null);
const showCalls = process.argv.includes('--calls');
const log = (text) => process.stderr.write(`${text}\n`);

if (!existsSync(cli)) {
  log(`${cli} is missing: build first (npm run build, or bench/run.sh)`);
  process.exit(1);
}

// Fixed commit dates: the replay's commits then get the recording's shas (it maps them anyway).
const { work, env } = benchWorkspace('ralphtool-bench-');
const timesFile = path.join(work, 'agent-times.txt');
const load = loadWatch();

try {
  const sizes = [
    { name: 'small (20 files)', files: 20 },
    // --files 0: the small repository only (the suite's smoke run of this script).
    ...(largeFiles > 0 ? [{ name: `${largeFiles} files`, files: largeFiles }] : []),
  ];
  for (const size of sizes) {
    log(`creating the ${size.name} repository…`);
    size.template = makeFixtureRepo(
      work,
      `fixture-${size.files}`,
      { files: size.files, stories },
      env,
    );
  }
  const variants = [
    { name: 'accepted', failFirst: false },
    { name: 'fails once', failFirst: true },
  ].map((v) => ({
    ...v,
    agent: prepareAgent(work, { stories, failFirst: v.failFirst, fakeAgent }),
  }));

  const cases = [];
  for (const size of sizes) {
    for (const variant of variants) {
      log(`${size.name}, ${variant.name}: recording ralphtool's git commands…`);
      cases.push({ size, variant, recording: await record(size.template, variant.agent, stories) });
    }
  }
  for (const c of cases) c.samples = { floor: [], replay: [], ralphtool: [] };
  for (let r = 0; r < rounds; r++) {
    for (const c of cases) {
      log(`round ${r + 1}/${rounds}: ${c.size.name}, ${c.variant.name}`);
      // The three ways take turns going first: a machine that slows down mid-round slows each.
      const ways = ['floor', 'replay', 'ralphtool'];
      for (let k = 0; k < ways.length; k++) {
        const way = ways[(k + r) % ways.length];
        c.samples[way].push(await measure(way, c.size.template, c.variant, c.recording, stories));
      }
    }
  }

  const long = [];
  for (const n of longChanges) {
    log(`a change of ${n} stories…`);
    const template = makeFixtureRepo(work, `fixture-long-${n}`, { files: 20, stories: n }, env);
    const agent = prepareAgent(work, { stories: n, failFirst: false, fakeAgent, tag: `long-${n}` });
    const variant = { name: 'accepted', failFirst: false, agent };
    const samples = { floor: [], ralphtool: [] };
    for (let r = 0; r < longRounds; r++) {
      const ways = r % 2 === 0 ? ['floor', 'ralphtool'] : ['ralphtool', 'floor'];
      for (const way of ways) samples[way].push(await measure(way, template, variant, null, n));
    }
    long.push({ stories: n, samples });
  }

  const results = { rounds, stories, cases, long, longRounds };
  process.stdout.write(`${formatReport(results)}\n\n${load.report()}\n`);
  if (jsonOut) {
    const plain = {
      rounds,
      stories,
      cases: cases.map((c) => ({
        repo: c.size.name,
        variant: c.variant.name,
        gitCallsPerStory: c.recording.loopCalls / stories,
        samples: c.samples,
      })),
      long,
    };
    writeFileSync(jsonOut, JSON.stringify(plain, null, 2));
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

/**
 * One untimed run of ralphtool with the recording git first on PATH: the git processes it starts
 * (with everything needed to replay them), which of them ran inside the loop, and its final branch.
 */
async function record(template, agent, n) {
  const dir = mkdtempSync(path.join(work, 'record-'));
  const recorder = makeRecordingGit(dir);
  return inCopy(template, async (repo) => {
    const run = await timedRun({
      cli,
      repo,
      agent,
      env: {
        ...env,
        PATH: `${recorder.bin}${path.delimiter}${env.PATH ?? ''}`,
        BENCH_GIT_LOG: recorder.log,
      },
      timesFile,
    });
    checkRun(run, agent.failFirst, n);
    const entries = readRecording(recorder);
    const window = loopWindow(run.events);
    const inLoop = entries.filter(
      (e) => e.kind === 'git' && e.startMs >= window.fromMs && e.startMs <= window.toMs,
    );
    const loopCalls = inLoop.length;
    // Which processes a story pays for, in order: what to look at first when the count grows.
    if (showCalls) {
      log(`git processes inside the loop (${agent.failFirst ? 'fails once' : 'accepted'}):`);
      for (const e of inLoop) log(`  git ${e.args.join(' ')}`);
    }
    const branch = execFileSync('git', ['rev-parse', `ralph/${CHANGE}`], {
      cwd: repo,
      env,
      encoding: 'utf8',
    }).trim();
    return { repo, entries, window, loopCalls, branch };
  });
}

/** Milliseconds per story of one way on a fresh copy (git processes per story for the floor). */
async function measure(way, template, variant, recording, n) {
  return inCopy(template, async (repo) => {
    const agent = agentRunner({ fakeAgent, scenarioFile: variant.agent.scenarioFile, env });
    if (way === 'floor') {
      return protocolFloor({
        repo,
        env,
        stories: n,
        failFirst: variant.failFirst,
        scenarioFile: variant.agent.scenarioFile,
        fakeAgent,
      });
    }
    if (way === 'replay') {
      const replay = replayRecording(recording.entries, {
        fromRepo: recording.repo,
        toRepo: repo,
        env,
        window: recording.window,
        agent,
      });
      const branch = execFileSync('git', ['rev-parse', `ralph/${CHANGE}`], {
        cwd: repo,
        env,
        encoding: 'utf8',
      }).trim();
      const expected = replay.shas.get(recording.branch) ?? recording.branch;
      if (branch !== expected)
        throw new Error(`the replay ended at ${branch}, the run at ${recording.branch}`);
      return { msPerStory: replay.loopMs / n, callsPerStory: replay.loopCalls / n };
    }
    const run = await timedRun({ cli, repo, agent: variant.agent, env, timesFile });
    checkRun(run, variant.failFirst, n);
    return {
      msPerStory: loopMs(run.events, run.agentMs) / n,
      wallMs: run.wallMs,
      agentMs: run.agentMs,
    };
  });
}

/** The loop: from the first `story.started` to `run.awaiting-choice`, in epoch milliseconds. */
function loopWindow(events) {
  const at = (type) => Date.parse(events.find((e) => e.type === type)?.ts ?? '');
  return { fromMs: at('story.started'), toMs: at('run.awaiting-choice') };
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
function checkRun(run, failFirst, n) {
  const finished = run.events.at(-1);
  const checkpoints = run.events.filter((e) => e.type === 'checkpoint.created').length;
  const expected = failFirst ? n * 2 : n;
  if (finished?.type !== 'run.finished' || finished.outcome !== 'complete') {
    throw new Error(`the run did not complete: ${JSON.stringify(finished)}`);
  }
  if (checkpoints !== n || run.attempts !== expected) {
    throw new Error(
      `expected ${n} checkpoints and ${expected} attempts, got ${checkpoints} and ${run.attempts}`,
    );
  }
}
