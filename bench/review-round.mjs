#!/usr/bin/env node
// What the review round (`--review`) costs beside the reviewer: the same N-story run with an
// instant agent, with `--review-command` (a reviewer that reads its prompt and approves at once)
// and without, alternating, medians with min–max. The round's time is taken from the run's own
// events (the last checkpoint.created → review.finished); side by side, the reviewer alone (the
// same program given a prompt of the same size, spawned and waited for) is the floor: what is
// left is ralphtool's (the prompt's making — specs, the diff, the verify results —, the
// reviewer's start through its wrapper, the revert check and the record). Runs the BUILT CLI.
//
//   node bench/review-round.mjs [--rounds 5] [--stories 5] [--files 20] [--cli dist/cli/main.js]
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { performance } from 'node:perf_hooks';
import { CHANGE, benchEnv, copyRepo, makeFixtureRepo } from './lib/fixture-repo.mjs';
import { median, ratio, spread, table } from './lib/stats.mjs';
import { ROOT, cliPath, option } from './lib/args.mjs';
import { loadWatch } from './lib/load.mjs';

const fakeAgent = path.join(ROOT, 'test/fixtures/agents/fake-agent.mjs');
const cli = cliPath();
const rounds = Number(option('rounds', '5'));
const stories = Number(option('stories', '5'));
const files = Number(option('files', '20'));
const log = (text) => process.stderr.write(`${text}\n`);
if (!existsSync(cli)) {
  log(`${cli} is missing: build first (npm run build)`);
  process.exit(1);
}

const work = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-bench-review-'));
const home = path.join(work, 'home');
mkdirSync(home);
const env = benchEnv(home);
const scenarioFile = path.join(work, 'scenario.json');
writeFileSync(
  scenarioFile,
  JSON.stringify({
    '*': [{ write: 'src/story.txt', content: 'x\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
  }),
);
// The reviewer: reads its whole prompt (as a model would be given it), then approves.
const reviewer = path.join(work, 'reviewer.sh');
writeFileSync(reviewer, '#!/bin/sh\ncat >/dev/null\necho "<promise>APPROVED</promise>"\n', {
  mode: 0o755,
});
const runEnv = { ...env, FAKE_AGENT_SCENARIO: scenarioFile };
const agentFlags = [
  '--agent',
  'command',
  '--agent-command',
  `'${process.execPath}' '${fakeAgent}'`,
];

const load = loadWatch();
try {
  const template = makeFixtureRepo(work, 'template', { files, stories }, env);
  const samples = { plain: [], reviewed: [], round: [], alone: [] };
  let promptBytes = 0;
  for (let r = 0; r < rounds; r++) {
    const ways = r % 2 === 0 ? ['plain', 'reviewed'] : ['reviewed', 'plain'];
    for (const way of ways) {
      log(`round ${r + 1}/${rounds}: ${way}`);
      const result = await once(template, way === 'reviewed');
      samples[way].push(result.wallMs);
      if (way === 'reviewed') {
        samples.round.push(result.roundMs);
        promptBytes = result.promptBytes;
        // The floor, right after: the reviewer alone with a prompt of the same size.
        samples.alone.push(await reviewerAlone(promptBytes));
      }
    }
  }
  const excess = median(samples.reviewed) - median(samples.plain);
  const rows = [
    ['run without review', spread(samples.plain), '1.00×'],
    [
      'run with --review-command',
      spread(samples.reviewed),
      ratio(median(samples.reviewed), median(samples.plain)),
    ],
    [
      'the review round (events)',
      spread(samples.round),
      ratio(median(samples.round), median(samples.alone)),
    ],
    ['the reviewer alone (floor)', spread(samples.alone), '1.00×'],
  ];
  process.stdout.write(
    `${table(['', 'wall, median (min–max)', 'ratio'], rows)}\n\n` +
      `the review adds ${excess.toFixed(0)} ms to the run; the round is ${(median(samples.round) - median(samples.alone)).toFixed(0)} ms above the reviewer alone\n` +
      `${stories} stories, ${files} files, review prompt ${promptBytes} bytes, ${rounds} rounds\n${load.report()}\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

async function once(template, reviewed) {
  const repo = copyRepo(template, env);
  try {
    const args = [
      'run',
      CHANGE,
      '--json',
      '--on-complete',
      'keep',
      ...agentFlags,
      ...(reviewed ? ['--review-command', reviewer] : []),
    ];
    const began = performance.now();
    const { code, stdout, stderr } = await run(process.execPath, [cli, ...args], repo);
    const wallMs = performance.now() - began;
    if (code !== 0) throw new Error(`ralphtool failed (${code}): ${stderr}`);
    const events = stdout
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l));
    if (!reviewed) return { wallMs };
    const finished = events.find((e) => e.type === 'review.finished');
    if (finished === undefined) throw new Error('the run had no review.finished');
    const lastCheckpoint = events.filter((e) => e.type === 'checkpoint.created').at(-1);
    const roundMs = Date.parse(finished.ts) - Date.parse(lastCheckpoint.ts);
    const promptFile = path.join(repo, '.git', 'ralphtool', CHANGE, 'prompts', 'review-1.md');
    const promptBytes = existsSync(promptFile) ? readFileSync(promptFile).length : 0;
    return { wallMs, roundMs, promptBytes };
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}

/** The reviewer spawned with a prompt of `bytes` on stdin, to its exit. */
async function reviewerAlone(bytes) {
  const began = performance.now();
  const { code } = await run(reviewer, [], work, 'x'.repeat(bytes));
  if (code !== 0) throw new Error('the reviewer alone failed');
  return performance.now() - began;
}

function run(program, args, cwd, input = null) {
  return new Promise((resolve, reject) => {
    const child = spawn(program, args, {
      cwd,
      env: runEnv,
      stdio: [input === null ? 'ignore' : 'pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr = (stderr + c).slice(-4000)));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    if (input !== null) child.stdin.end(input);
  });
}
