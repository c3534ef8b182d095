#!/usr/bin/env node
// The terminal UI while an agent floods it: ralphtool's CPU (share of one core, from
// /proc/<pid>/stat) over a few seconds with the Agent tab open while the agent prints
// --rate lines a second, then the key-to-screen latency of Tab (Agent ⇄ Info) measured the way a
// person sees it: the key is sent to a real terminal (tmux send-keys) and the screen read back
// (capture-pane) until the other tab shows. Each CLI given runs in turn, round by round.
//
//   node bench/ui-flood.mjs [--rate 20000] [--seconds 6] [--keys 10] [--rounds 3]
//                           [--cli dist/cli/main.js] [--baseline /tmp/before/dist/cli/main.js]
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { setTimeout as sleep } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { cliPath, option } from './lib/args.mjs';
import { loadWatch } from './lib/load.mjs';
import { benchEnv, copyRepo, makeFixtureRepo } from './lib/fixture-repo.mjs';
import { median, table } from './lib/stats.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));
const agent = path.join(here, 'lib/paced-agent.mjs');
const rate = Number(option('rate', '20000'));
const seconds = Number(option('seconds', '6'));
const keyCount = Number(option('keys', '10'));
const rounds = Number(option('rounds', '3'));
const baseline = option('baseline', null);
const clis = [
  { name: 'ralphtool', path: cliPath() },
  ...(baseline ? [{ name: 'baseline', path: path.resolve(baseline) }] : []),
];
const log = (text) => process.stderr.write(`${text}\n`);
const tmux = (...args) => execFileSync('tmux', args, { encoding: 'utf8' });
const TICKS = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim());

const work = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-bench-ui-'));
mkdirSync(path.join(work, 'home'));
const env = benchEnv(path.join(work, 'home'));
const load = loadWatch();
try {
  const template = makeFixtureRepo(work, 'fixture', { files: 20, stories: 1 }, env);
  const results = new Map(clis.map((c) => [c.name, { cpu: [], keys: [] }]));
  for (let r = 0; r < rounds; r++) {
    for (const cli of r % 2 === 0 ? clis : [...clis].reverse()) {
      log(`round ${r + 1}/${rounds}: ${cli.name}`);
      const { cpu, keys } = await oneSession(cli.path, copyRepo(template, env));
      results.get(cli.name).cpu.push(cpu);
      results.get(cli.name).keys.push(...keys);
    }
  }
  const pct = (v) => `${(v * 100).toFixed(0)} %`;
  const rows = clis.map((c) => {
    const { cpu, keys } = results.get(c.name);
    return [
      c.name,
      `${pct(median(cpu))} (${pct(Math.min(...cpu))}–${pct(Math.max(...cpu))})`,
      `${median(keys).toFixed(0)} ms (${Math.min(...keys).toFixed(0)}–${Math.max(...keys).toFixed(0)})`,
    ];
  });
  process.stdout.write(
    `terminal UI, Agent tab, agent printing ${rate} lines/s; ${rounds} rounds, ${keyCount} keys each\n\n`,
  );
  process.stdout.write(
    `${table(['cli', 'CPU of one core', 'Tab → screen'], rows)}\n\n${load.report()}\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}

async function oneSession(cli, repo) {
  const name = `ralphtool-bench-ui-${process.pid}`;
  const envArgs = Object.entries({
    ...env,
    PACED_RATE: String(rate),
    PACED_SECONDS: String(seconds * 4 + 30),
    TERM: 'xterm-256color',
  }).flatMap(([k, v]) => ['-e', `${k}=${v}`]);
  tmux(
    'new-session',
    '-d',
    '-s',
    name,
    '-x',
    '120',
    '-y',
    '35',
    '-c',
    repo,
    ...envArgs,
    process.execPath,
    cli,
    '--agent',
    'command',
    '--agent-command',
    agent,
  );
  let pid = null;
  try {
    await waitFor(name, (s) => s.includes('bench-change'));
    tmux('send-keys', '-t', name, 'Enter');
    await waitFor(name, (s) => /r run/.test(s));
    tmux('send-keys', '-t', name, 'r');
    await waitFor(name, (s) => s.includes('[ Info ]') || s.includes('[ Agent ]'));
    if (!screen(name).includes('[ Agent ]')) tmux('send-keys', '-t', name, 'Tab');
    await waitFor(name, (s) => s.includes('[ Agent ]') && /line \d+/.test(s));
    pid = ralphtoolPid(name, cli);
    await sleep(1000);
    const before = cpuTicks(pid);
    const t0 = process.hrtime.bigint();
    await sleep(seconds * 1000);
    const cpu = (cpuTicks(pid) - before) / TICKS / (Number(process.hrtime.bigint() - t0) / 1e9);
    const keys = [];
    for (let i = 0; i < keyCount; i++) {
      const want = i % 2 === 0 ? '[ Info ]' : '[ Agent ]';
      const start = process.hrtime.bigint();
      tmux('send-keys', '-t', name, 'Tab');
      await waitFor(name, (s) => s.includes(want), 1);
      keys.push(Number(process.hrtime.bigint() - start) / 1e6);
      await sleep(200);
    }
    return { cpu, keys };
  } finally {
    try {
      tmux('kill-session', '-t', name);
    } catch {
      // gone
    }
    // A hung-up ralphtool stops its run (the attempt saved and reverted) before it exits.
    for (let i = 0; pid !== null && i < 300 && existsSync(`/proc/${pid}`); i++) await sleep(100);
    rmSync(repo, { recursive: true, force: true, maxRetries: 5, retryDelay: 200 });
  }
}

function screen(name) {
  return tmux('capture-pane', '-p', '-t', name);
}

async function waitFor(name, test, pollMs = 50, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  let last = '';
  while (Date.now() < deadline) {
    last = screen(name);
    if (test(last)) return last;
    await sleep(pollMs);
  }
  throw new Error(`timed out; the screen was:\n${last}`);
}

/** The ralphtool process in the pane: the node process running the CLI file. */
function ralphtoolPid(name, cli) {
  const panePid = Number(tmux('display-message', '-p', '-t', name, '#{pane_pid}').trim());
  const pids = readdirSync('/proc').filter((e) => /^\d+$/.test(e));
  for (const pid of [String(panePid), ...pids]) {
    try {
      const cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (cmd.includes(cli)) return Number(pid);
    } catch {
      // gone
    }
  }
  throw new Error('the ralphtool process was not found');
}

function cpuTicks(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return Number(fields[11]) + Number(fields[12]); // utime + stime
}
