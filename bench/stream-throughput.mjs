#!/usr/bin/env node
// How fast agent output flows through ralphtool's run path, and what it costs in memory: a
// one-story run whose agent floods it (Claude Code stream-json by the byte, or tiny text lines),
// against the same run with an agent that prints nothing, alternating. Throughput = the flood's
// size / (flood run − empty run); peak RSS of the ralphtool process (VmHWM). Runs the BUILT CLI.
//
//   node bench/stream-throughput.mjs [--bytes 1073741824] [--lines 1000000] [--rounds 3]
//                                    [--cli dist/cli/main.js]
import { spawn } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { CHANGE, benchEnv, copyRepo, makeFixtureRepo } from './lib/fixture-repo.mjs';
import { median, ratio, table } from './lib/stats.mjs';
import { cliPath, option } from './lib/args.mjs';
import { loadWatch } from './lib/load.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const streamAgent = path.join(here, 'lib/stream-agent.mjs');

const cli = cliPath();
const bytes = Number(option('bytes', String(1 << 30)));
const lines = Number(option('lines', '1000000'));
const rounds = Number(option('rounds', '3'));
const log = (text) => process.stderr.write(`${text}\n`);
if (!existsSync(cli)) {
  log(`${cli} is missing: build first (npm run build)`);
  process.exit(1);
}

const work = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-bench-stream-'));
mkdirSync(path.join(work, 'home'));
const env = benchEnv(path.join(work, 'home'));
chmodSync(streamAgent, 0o755);

const load = loadWatch();
try {
  const template = makeFixtureRepo(work, 'fixture', { files: 20, stories: 1 }, env);
  const cases = [
    {
      name: 'Claude stream-json',
      unit: 'MB/s',
      amount: bytes,
      args: ['--agent', 'claude'],
      // IS_SANDBOX: as root, Claude Code (and ralphtool's preflight for it) wants it.
      env: (n) => ({
        IS_SANDBOX: '1',
        RALPHTOOL_CLAUDE_BIN: streamAgent,
        STREAM_FORMAT: 'claude',
        STREAM_BYTES: String(n),
      }),
    },
    {
      name: 'tiny text lines',
      unit: 'lines/s',
      amount: lines,
      args: ['--agent', 'command', '--agent-command', streamAgent],
      env: (n) => ({ STREAM_FORMAT: 'plain', STREAM_LINES: String(n) }),
    },
  ];
  const rows = [];
  for (const c of cases) {
    const source = await sourceRate(c);
    const flood = [];
    const empty = [];
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? ['flood', 'empty'] : ['empty', 'flood'];
      for (const which of order) {
        log(`${c.name}: round ${r + 1}/${rounds}, ${which}`);
        const result = await timedRun(c, which === 'flood' ? c.amount : 0, template);
        (which === 'flood' ? flood : empty).push(result);
      }
    }
    const extraMs = median(flood.map((f) => f.wallMs)) - median(empty.map((e) => e.wallMs));
    const rate = c.amount / (extraMs / 1000);
    const shown = (v) =>
      c.unit === 'MB/s' ? `${(v / 1e6).toFixed(1)} MB/s` : `${Math.round(v / 1000)}k lines/s`;
    rows.push([
      c.name,
      c.unit === 'MB/s' ? `${(c.amount / 1e6).toFixed(0)} MB` : `${c.amount} lines`,
      `${(median(flood.map((f) => f.wallMs)) / 1000).toFixed(2)} s`,
      `${(median(empty.map((e) => e.wallMs)) / 1000).toFixed(2)} s`,
      shown(rate),
      shown(source),
      ratio(source, rate),
      `${(median(flood.map((f) => f.peakKiB)) / 1024).toFixed(0)} MiB`,
      `${(median(empty.map((e) => e.peakKiB)) / 1024).toFixed(0)} MiB`,
    ]);
  }
  process.stdout.write(
    [
      `agent output through ralphtool run --json: median of ${rounds} rounds, flood and empty runs alternating`,
      '',
      table(
        [
          'stream',
          'size',
          'run',
          'empty run',
          'through ralphtool',
          'agent alone',
          'alone / through',
          'peak RSS',
          'empty RSS',
        ],
        rows,
      ),
      '',
      'through ralphtool = size / (run − empty run); agent alone = the stand-in writing to /dev/null',
      'peak RSS = VmHWM of the ralphtool process (not of the agent)',
      '',
      load.report(),
      '',
    ].join('\n'),
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

/** How fast the stand-in agent writes on its own (to /dev/null): ralphtool cannot beat it. */
async function sourceRate(c) {
  const dir = copyRepo(path.join(work, 'fixture'), env);
  try {
    const devNull = openSync('/dev/null', 'w');
    const started = process.hrtime.bigint();
    const child = spawn(process.execPath, [streamAgent], {
      cwd: dir,
      env: { ...env, ...c.env(c.amount), RALPHTOOL_CHANGE: CHANGE },
      stdio: ['ignore', devNull, 'inherit'],
    });
    await new Promise((resolve) => child.on('close', resolve));
    return c.amount / (Number(process.hrtime.bigint() - started) / 1e9);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** One run on a fresh copy: wall time and the ralphtool process's peak RSS (KiB). */
async function timedRun(c, amount, template) {
  const repo = copyRepo(template, env);
  try {
    const started = process.hrtime.bigint();
    const child = spawn(
      process.execPath,
      [cli, 'run', CHANGE, ...c.args, '--json', '--on-complete', 'keep'],
      { cwd: repo, env: { ...env, ...c.env(amount) }, stdio: ['ignore', 'pipe', 'pipe'] },
    );
    let peakKiB = 0;
    let last = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk) => {
      last = (last + chunk).slice(-4096);
    });
    child.stderr.setEncoding('utf8').on('data', (chunk) => (stderr += chunk));
    let done = false;
    const closed = new Promise((resolve) =>
      child.on('close', (code) => ((done = true), resolve(code))),
    );
    while (!done) {
      try {
        const status = readFileSync(`/proc/${child.pid}/status`, 'utf8');
        const hwm = /VmHWM:\s+(\d+) kB/.exec(status);
        if (hwm) peakKiB = Math.max(peakKiB, Number(hwm[1]));
      } catch {
        // gone between the check and the read
      }
      await Promise.race([closed, sleep(50)]);
    }
    const code = await closed;
    const wallMs = Number(process.hrtime.bigint() - started) / 1e6;
    const finished = JSON.parse(last.trim().split('\n').at(-1) ?? '{}');
    if (code !== 0 || finished.type !== 'run.finished' || finished.outcome !== 'complete') {
      throw new Error(
        `the run did not complete (exit ${code}): ${stderr.slice(-1000)} ${last.slice(-500)}`,
      );
    }
    return { wallMs, peakKiB };
  } finally {
    rmSync(repo, { recursive: true, force: true });
  }
}
