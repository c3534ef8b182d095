#!/usr/bin/env node
// What `--push <remote>` costs: the same N-story run with an instant agent (the fake agent
// ticks the story's task and says COMPLETE; with --fail-once each story's first attempt fails
// first) kept local, and pushed to a bare repository on the same disk, alternating, medians
// with min–max. Reported per story: wall time, pushes (every push the remote received, the
// claim's and the account entry's too: its post-receive hook counts them, one shell per push on
// every build), and the bytes the remote received (its packs: the bare repository keeps every
// push as a pack, receive.unpackLimit=1). Runs the BUILT CLI.
//
// With --baseline, a second build's local and pushed runs take turns with this one's, round by
// round, so the two builds' ratios come from the same minutes of the machine.
//
//   node bench/remote-push.mjs [--rounds 5] [--stories 10] [--files 20] [--fail-once]
//                              [--cli path/to/dist/cli/main.js] [--baseline other/dist/cli/main.js]
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { CHANGE, benchEnv, copyRepo, git, makeFixtureRepo } from './lib/fixture-repo.mjs';
import { median, table } from './lib/stats.mjs';
import { ROOT, cliPath, option } from './lib/args.mjs';
import { loadWatch } from './lib/load.mjs';

const fakeAgent = path.join(ROOT, 'test/fixtures/agents/fake-agent.mjs');

const cli = cliPath();
const rounds = Number(option('rounds', '5'));
const stories = Number(option('stories', '10'));
const files = Number(option('files', '20'));
const failOnce = process.argv.includes('--fail-once');
const baseline = option('baseline', null);
const builds = [
  { name: 'this build', cli },
  ...(baseline === null ? [] : [{ name: 'baseline', cli: path.resolve(baseline) }]),
];
const log = (text) => process.stderr.write(`${text}\n`);
for (const build of builds) {
  if (!existsSync(build.cli)) {
    log(`${build.cli} is missing: build first (npm run build)`);
    process.exit(1);
  }
}
const load = loadWatch();

const work = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-bench-push-'));
const home = path.join(work, 'home');
mkdirSync(home);
const env = benchEnv(home);
const scenarioFile = path.join(work, 'scenario.json');
const scenario = {
  '*': [{ write: 'src/story.txt', content: 'x\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
};
if (failOnce) {
  for (let i = 1; i <= stories; i++) {
    scenario[`${i}-1`] = [
      { write: `src/bad-${i}.txt`, content: 'bad\n' },
      { signal: 'FAILED: not yet' },
    ];
  }
}
writeFileSync(scenarioFile, JSON.stringify(scenario));
const runEnv = { ...env, FAKE_AGENT_SCENARIO: scenarioFile };
const agentFlags = [
  '--agent',
  'command',
  '--agent-command',
  `'${process.execPath}' '${fakeAgent}'`,
];

try {
  const template = makeFixtureRepo(work, 'template', { files, stories }, env);
  for (const build of builds) build.samples = { local: [], push: [] };
  for (let r = 0; r < rounds; r++) {
    // Every build's local and pushed run each round, taking turns going first.
    const ways = builds.flatMap((build) => [
      { build, kind: 'local' },
      { build, kind: 'push' },
    ]);
    for (let k = 0; k < ways.length; k++) {
      const { build, kind } = ways[(k + r) % ways.length];
      log(`round ${r + 1}/${rounds}: ${build.name}, ${kind}`);
      build.samples[kind].push(await once(template, kind === 'push', build.cli));
    }
  }
  const perStory = (values) => values.map((v) => v / stories);
  const rows = [];
  const ratios = [];
  for (const build of builds) {
    const { samples } = build;
    const wall = (kind) => range(perStory(samples[kind].map((s) => s.wallMs)), 'ms');
    const cpu = (kind) => range(perStory(samples[kind].map((s) => s.cpuMs)), 'ms');
    const cpuRatio =
      median(samples.push.map((s) => s.cpuMs)) / median(samples.local.map((s) => s.cpuMs));
    const pushes = median(samples.push.map((s) => s.pushes)) / stories;
    const bytes = median(samples.push.map((s) => s.bytes)) / stories;
    const ratio =
      median(samples.push.map((s) => s.wallMs)) / median(samples.local.map((s) => s.wallMs));
    const excess =
      (median(samples.push.map((s) => s.wallMs)) - median(samples.local.map((s) => s.wallMs))) /
      stories;
    rows.push([`${build.name}: local only`, wall('local'), cpu('local'), '0', '0']);
    rows.push([
      `${build.name}: --push (bare repo, same disk)`,
      wall('push'),
      cpu('push'),
      pushes.toFixed(2),
      `${Math.round(bytes)}`,
    ]);
    ratios.push(
      `${build.name}: --push / local ${ratio.toFixed(2)}×, ${excess.toFixed(0)} ms per story above local; CPU ${cpuRatio.toFixed(2)}×`,
    );
  }
  process.stdout.write(
    `${table(['', 'wall per story (median, min–max)', 'CPU per story', 'pushes per story', 'bytes per story'], rows)}\n\n${ratios.join('\n')}\n${stories} stories${failOnce ? ' (each fails once)' : ''}, ${files} files, ${rounds} rounds\n${load.report()}\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

async function once(template, push, cliFile) {
  const repo = copyRepo(template, env);
  const origin = `${repo}-origin.git`;
  try {
    if (push) {
      git(work, env, 'init', '-q', '--bare', '-b', 'main', origin);
      git(origin, env, 'config', 'receive.unpackLimit', '1');
      git(repo, env, 'remote', 'add', 'origin', origin);
      git(repo, env, 'push', '-q', 'origin', 'main');
      const hook = path.join(origin, 'hooks', 'post-receive');
      writeFileSync(hook, '#!/bin/sh\necho >> "$GIT_DIR/pushes"\n', { mode: 0o755 });
    }
    const before = push ? packBytes(origin) : 0;
    const args = [
      'run',
      CHANGE,
      '--json',
      '--on-complete',
      'keep',
      ...agentFlags,
      ...(push ? ['--push', 'origin'] : []),
    ];
    const started = process.hrtime.bigint();
    const { code, stdout, stderr, cpuMs } = await run(cliFile, args, repo);
    const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
    if (code !== 0) throw new Error(`ralphtool failed (${code}): ${stderr}`);
    const events = stdout
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l));
    if (push && events.some((e) => e.type === 'remote.push-failed'))
      throw new Error('a push failed');
    return {
      wallMs,
      cpuMs,
      pushes: push ? pushesReceived(origin) : 0,
      bytes: push ? packBytes(origin) - before : 0,
    };
  } finally {
    rmSync(repo, { recursive: true, force: true });
    rmSync(origin, { recursive: true, force: true });
  }
}

/** The pushes the bare repository received (its post-receive hook writes a line for each). */
function pushesReceived(bare) {
  const file = path.join(bare, 'pushes');
  return existsSync(file) ? readFileSync(file, 'utf8').split('\n').length - 1 : 0;
}

function packBytes(bare) {
  const dir = path.join(bare, 'objects', 'pack');
  if (!existsSync(dir)) return 0;
  return readdirSync(dir)
    .filter((f) => f.endsWith('.pack'))
    .reduce((sum, f) => sum + statSync(path.join(dir, f)).size, 0);
}

// ralphtool under bash, whose `times` then prints the CPU its children used (ralphtool and every
// process it waited for: git, the agents, the pushes' receiving side): user and system seconds,
// on stderr's last line. On a loaded machine wall times scatter; CPU seconds hardly do.

function run(cliFile, args, cwd) {
  return new Promise((resolve) => {
    const withTimes = '"$@"; code=$?; times >&2; exit $code';
    const child = spawn('bash', ['-c', withTimes, 'bash', process.execPath, cliFile, ...args], {
      cwd,
      env: runEnv,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (c) => (stdout += c));
    child.stderr.setEncoding('utf8').on('data', (c) => (stderr += c));
    child.on('exit', (code) => {
      const last = stderr.trimEnd().split('\n').at(-1) ?? '';
      const secs = [...last.matchAll(/(\d+)m([\d.]+)s/g)].map(
        (m) => Number(m[1]) * 60 + Number(m[2]),
      );
      const cpuMs = secs.length === 2 ? (secs[0] + secs[1]) * 1000 : NaN;
      resolve({ code, stdout, stderr, cpuMs });
    });
  });
}

function range(values, unit) {
  const f = (v) => `${v.toFixed(0)} ${unit}`;
  return `${f(median(values))} (${f(Math.min(...values))}–${f(Math.max(...values))})`;
}
