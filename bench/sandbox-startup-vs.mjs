#!/usr/bin/env node
// Two builds' `sandbox-startup.mjs` side by side: runs of each take turns (the runtime is one per
// process, so each run is a process of its own), then the medians of all their samples, the
// ratios of the figures (this build / the other) and the machine's load.
//   node bench/sandbox-startup-vs.mjs --against /tmp/snap/dist [--dist dist] [--pairs 6] [--rounds 15]
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { fileURLToPath } from 'node:url';
import { loadWatch } from './lib/load.mjs';
import { beforeAfterReport } from './lib/report.mjs';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
};
const here = path.dirname(fileURLToPath(import.meta.url));
const against = arg('--against', null);
if (against === null) {
  process.stderr.write('sandbox-startup-vs: give --against <a frozen build’s dist folder>\n');
  process.exit(2);
}
const builds = { before: path.resolve(against), after: path.resolve(arg('--dist', 'dist')) };
const pairs = Number(arg('--pairs', '6'));
const rounds = arg('--rounds', '15');
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const scratch = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-bench-vs-'));
const samples = { before: [], after: [] };
const load = loadWatch();
for (let i = 0; i < pairs; i += 1) {
  // Taking turns at going first.
  const order = i % 2 === 0 ? ['before', 'after'] : ['after', 'before'];
  for (const which of order) {
    const out = path.join(scratch, `${which}-${String(i)}.json`);
    execFileSync(
      process.execPath,
      [
        path.join(here, 'sandbox-startup.mjs'),
        '--rounds',
        rounds,
        '--dist',
        builds[which],
        '--json',
        out,
      ],
      { stdio: ['ignore', 'ignore', 'inherit'] },
    );
    samples[which].push(JSON.parse(readFileSync(out, 'utf8')));
    process.stderr.write(`pair ${String(i + 1)}/${String(pairs)}: ${which} done\n`);
  }
}
rmSync(scratch, { recursive: true, force: true });

const all = (which, key) => samples[which].flatMap((s) => s[key]);
const figure = (which) => {
  const plain = median(all(which, 'plain'));
  const contained = median(all(which, 'contained'));
  return {
    setUp: median(samples[which].map((s) => s.setUpOncePerRunMs)),
    plain,
    wrap: median(all(which, 'wrapOnly')),
    end: samples[which].every((s) => s.ends !== undefined) ? median(all(which, 'ends')) : NaN,
    contained,
    added: contained - plain,
  };
};
const before = figure('before');
const after = figure('after');
const rows = [
  ['set-up, once per run (median of runs)', 'setUp'],
  ['an attempt’s start, plain', 'plain'],
  ['an attempt’s start, contained', 'contained'],
  ['  of which the wrap', 'wrap'],
  ['  of which the end (monitor, clean-up)', 'end'],
  ['added per attempt (contained − plain)', 'added'],
];
process.stdout.write(
  beforeAfterReport({
    title: `${String(pairs)} pairs of runs taking turns, ${rounds} attempts each: before ${builds.before}, after ${builds.after}`,
    firstColumn: 'figure (median)',
    rows: rows,
    before,
    after,
    load,
  }),
);
