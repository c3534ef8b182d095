#!/usr/bin/env node
// What the usage governor's check costs before each attempt (run/account-governor.ts `gate`):
// the account file read and the decision, against reading the same file bare (fs.readFile,
// the floor of any look at it), interleaved, median of --rounds. Then for a run that pushes:
// the look at the remote's entry (a fetch of refs/ralphtool/accounts/<key> from a bare
// repository on the same disk and a cat-file), against the same fetch run bare from bash, timed
// by bash — and what a check costs per attempt once the look is taken at most every 30 s
// (REMOTE_LOOK_MS), for attempts --attempt-ms apart. Uses the built modules (npm run build).
//
//   node bench/governor-check.mjs [--rounds 200] [--remote-rounds 20] [--attempt-ms 2000]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { AccountGovernor, REMOTE_LOOK_MS } from '../dist/run/account-governor.js';
import { fetchAccountText, pushAccountText } from '../dist/remote/account-ref.js';
import {
  accountFile,
  accountsFolder,
  accountText,
  parseAccountEntry,
} from '../dist/checkpoint/index.js';
import { accountKey } from '../dist/agents/account-key.js';
import { benchEnv, git } from './lib/fixture-repo.mjs';
import { median, ratio, table } from './lib/stats.mjs';
import { option } from './lib/args.mjs';
import { loadWatch } from './lib/load.mjs';

const rounds = Number(option('rounds', '200'));
const remoteRounds = Number(option('remote-rounds', '20'));
const attemptMs = Number(option('attempt-ms', '2000'));
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;
/** `median (min–max)` in milliseconds to the microsecond: the local check is well under 1 ms. */
const spread = (values) =>
  `${median(values).toFixed(3)} ms (${Math.min(...values).toFixed(3)}–${Math.max(...values).toFixed(3)})`;

const work = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-bench-governor-'));
const home = path.join(work, 'home');
mkdirSync(home);
const env = { ...benchEnv(home), XDG_STATE_HOME: path.join(work, 'state') };
const load = loadWatch();
try {
  // A governor whose account file holds what a busy account's does: a utilisation and a limit.
  const governor = AccountGovernor.of(
    { agent: 'claude', pauseAt: 90 },
    env,
    { change: 'bench', dir: path.join(work, 'run') },
    () => undefined,
  );
  // Where the governor keeps the claude account's entry (one file per agent's account).
  const key = accountKey('claude', env);
  const file = accountFile(accountsFolder(env), key);
  const now = Date.now();
  governor.sawUsage(
    'claude',
    { percent: 42, resetsAt: new Date(now + 3_600_000).toISOString(), window: 'five_hour' },
    now,
  );
  await governor.hitLimit(
    { kind: 'usage', resetsAt: null, source: 'exit 75', message: 'usage limit reached' },
    now - 60_000,
  );
  const gate = [];
  const bare = [];
  for (let i = 0; i < rounds; i++) {
    const order = i % 2 === 0 ? ['gate', 'bare'] : ['bare', 'gate'];
    for (const way of order) {
      const start = process.hrtime.bigint();
      if (way === 'gate') await governor.gate(Date.now());
      else await readFile(file, 'utf8');
      (way === 'gate' ? gate : bare).push(ms(start));
    }
  }

  // The remote's entry: a bare repository holding one, a clone looking at it.
  const origin = path.join(work, 'origin.git');
  const clone = path.join(work, 'clone');
  git(work, env, 'init', '-q', '--bare', '-b', 'main', origin);
  git(work, env, 'init', '-q', '-b', 'main', clone);
  git(clone, env, 'remote', 'add', 'origin', origin);
  const ctx = { cwd: clone, timeoutMs: 30_000, baseEnv: env };
  const entry = parseAccountEntry(await readFile(file, 'utf8'));
  if (!(await pushAccountText(ctx, 'origin', key, accountText(entry)))) {
    throw new Error('could not put the account entry on the bench remote');
  }
  const ref = `refs/ralphtool/accounts/${key}`;
  const look = [];
  const bareFetch = [];
  const fetchScript = [
    'TIMEFORMAT=%6R',
    `{ time git fetch --quiet --no-tags --no-write-fetch-head origin "+${ref}:refs/bench/account" ; } 2>&1`,
  ].join('\n');
  for (let i = 0; i < remoteRounds; i++) {
    const order = i % 2 === 0 ? ['look', 'bare'] : ['bare', 'look'];
    for (const way of order) {
      if (way === 'look') {
        const start = process.hrtime.bigint();
        const text = await fetchAccountText(ctx, 'origin', key);
        look.push(ms(start));
        if (text === null) throw new Error('the look at the remote found no entry');
      } else {
        const out = execFileSync('bash', ['-c', fetchScript], {
          cwd: clone,
          env,
          encoding: 'utf8',
        });
        bareFetch.push(Number(out.trim().split('\n').at(-1)) * 1000);
      }
    }
  }
  const perAttempt =
    median(gate) + (median(look) * Math.min(attemptMs, REMOTE_LOOK_MS)) / REMOTE_LOOK_MS;
  const rows = [
    [
      "the governor's check (file read + decision)",
      spread(gate),
      ratio(median(gate), median(bare)),
    ],
    ['the file read bare (floor)', spread(bare), '1.00×'],
    [
      "a look at the remote's entry (fetch + cat-file)",
      spread(look),
      ratio(median(look), median(bareFetch)),
    ],
    ['the fetch bare from bash (floor)', spread(bareFetch), '1.00×'],
  ];
  process.stdout.write(
    `${table(['', 'median (min–max)', 'ratio'], rows)}\n\n` +
      `per attempt in a run that pushes, attempts ${attemptMs} ms apart, the remote looked at every ${REMOTE_LOOK_MS / 1000} s at most: ${perAttempt.toFixed(2)} ms (a look before every attempt: ${(median(gate) + median(look)).toFixed(2)} ms)\n` +
      `${rounds} local rounds, ${remoteRounds} remote rounds, interleaved\n${load.report()}\n`,
  );
} finally {
  rmSync(work, { recursive: true, force: true });
}
