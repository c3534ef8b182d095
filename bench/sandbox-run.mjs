#!/usr/bin/env node
// What `--sandbox` costs a run per story, two builds side by side: the same run of N accepted
// stories (the scripted fake agent writes a file, ticks its task, says COMPLETE) plain and with
// `--sandbox`, for each build, taking turns. The loop's time per story (first `story.started` →
// `run.awaiting-choice`, divided by the stories) with and without the sandbox; the difference is
// what containing each attempt costs inside a real run (wrap, bubblewrap, the end).
//   node bench/sandbox-run.mjs --against /tmp/snap/dist/cli/main.js [--cli dist/cli/main.js]
//                              [--rounds 3] [--stories 5]
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { cliPath, option, ROOT } from './lib/args.mjs';
import { benchEnv, CHANGE, copyRepo, makeFixtureRepo } from './lib/fixture-repo.mjs';
import { loadWatch } from './lib/load.mjs';
import { beforeAfterReport } from './lib/report.mjs';

const against = option('against', null);
if (against === null) {
  process.stderr.write('sandbox-run: give --against <a frozen build’s dist/cli/main.js>\n');
  process.exit(2);
}
const builds = { before: path.resolve(against), after: cliPath() };
const rounds = Number(option('rounds', '3'));
const stories = Number(option('stories', '5'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const scratch = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-bench-sandbox-run-'));
const home = path.join(scratch, 'home');
mkdirSync(home);
const env = benchEnv(home);
const template = makeFixtureRepo(scratch, 'repo', { files: 20, stories }, env);
const scenario = path.join(scratch, 'scenario.json');
const done = [
  { write: 'src/story.txt', content: 'work\n' },
  { tick: 'all' },
  { signal: 'COMPLETE' },
];
writeFileSync(scenario, JSON.stringify({ '*': done }));
const agent = path.join(scratch, 'agent.sh');
writeFileSync(
  agent,
  `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(path.join(ROOT, 'test/fixtures/agents/fake-agent.mjs'))} "$@"\n`,
);
chmodSync(agent, 0o755);

function run(cli, sandboxed) {
  const repo = copyRepo(template, env);
  const args = [cli, 'run', CHANGE, '--agent', 'command', '--agent-command', agent, '--json'];
  args.push('--on-complete', 'keep', ...(sandboxed ? ['--sandbox'] : []));
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, {
      cwd: repo,
      env: { ...env, FAKE_AGENT_SCENARIO: scenario },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    child.on('error', reject);
    child.on('close', (code) => {
      rmSync(repo, { recursive: true, force: true });
      const events = stdout
        .split('\n')
        .filter((l) => l.trim() !== '')
        .map((l) => JSON.parse(l));
      const at = (type) => Date.parse(events.find((e) => e.type === type)?.ts ?? '');
      const accepted = events.filter((e) => e.type === 'checkpoint.created').length;
      if (code !== 0 || accepted !== stories) {
        reject(new Error(`run exited ${String(code)} with ${String(accepted)} stories: ${stderr}`));
        return;
      }
      resolve((at('run.awaiting-choice') - at('story.started')) / stories);
    });
  });
}

const samples = { before: { plain: [], sandboxed: [] }, after: { plain: [], sandboxed: [] } };
const load = loadWatch();
for (let i = 0; i < rounds; i += 1) {
  const order = i % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
  for (const which of order) {
    for (const sandboxed of i % 2 === 0 ? [false, true] : [true, false]) {
      samples[which][sandboxed ? 'sandboxed' : 'plain'].push(await run(builds[which], sandboxed));
    }
  }
  process.stderr.write(`round ${String(i + 1)}/${String(rounds)} done\n`);
}
rmSync(scratch, { recursive: true, force: true });

const fig = (which) => {
  const plain = median(samples[which].plain);
  const sandboxed = median(samples[which].sandboxed);
  return { plain, sandboxed, added: sandboxed - plain };
};
const before = fig('before');
const after = fig('after');
process.stdout.write(
  beforeAfterReport({
    title: `${String(rounds)} rounds of ${String(stories)} accepted stories each way: before ${builds.before}, after ${builds.after}`,
    firstColumn: 'per story, in the loop (median)',
    rows: [
      ['without --sandbox', 'plain'],
      ['with --sandbox', 'sandboxed'],
      ['what --sandbox adds', 'added'],
    ],
    before,
    after,
    load,
  }),
);
