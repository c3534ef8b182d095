#!/usr/bin/env node
// `ralphtool list` on a repository of many changes (the vendored OpenSpec changes copied until
// there are --changes of them), and `ralphtool --version`, against node starting and doing
// nothing (the floor of any node CLI), the least a list does as a bare node program
// (lib/list-floor.mjs) and, with --baseline, another build of ralphtool,
// alternating run by run. Wall time of
// the whole process, medians with min–max.
//
//   node bench/list-changes.mjs [--changes 105] [--rounds 15] [--cli dist/cli/main.js]
//                               [--baseline /tmp/before/dist/cli/main.js] [--openspec]
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { ROOT, cliPath, option } from './lib/args.mjs';
import { loadWatch } from './lib/load.mjs';
import { median, ratio, spread, table } from './lib/stats.mjs';

const cli = cliPath();
const baseline = option('baseline', null);
const changes = Number(option('changes', '105'));
const rounds = Number(option('rounds', '15'));
const withOpenspec = process.argv.includes('--openspec');
const log = (text) => process.stderr.write(`${text}\n`);

const work = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-bench-list-'));
const load = loadWatch();
try {
  const repo = path.join(work, 'repo');
  const source = path.join(ROOT, 'test/fixtures/openspec-repo/changes');
  const names = readdirSync(source, { withFileTypes: true })
    .filter((e) => e.isDirectory() && e.name !== 'archive')
    .map((e) => e.name);
  mkdirSync(path.join(repo, 'openspec/changes'), { recursive: true });
  for (let i = 0; i < changes; i++) {
    const name = names[i % names.length];
    const copy = i < names.length ? name : `${name}-${Math.floor(i / names.length)}`;
    cpSync(path.join(source, name), path.join(repo, 'openspec/changes', copy), { recursive: true });
  }
  execFileSync('git', ['init', '-q'], { cwd: repo });
  const files =
    execFileSync('find', [path.join(repo, 'openspec'), '-type', 'f'], {
      encoding: 'utf8',
    }).split('\n').length - 1;
  log(`${changes} changes, ${files} files`);

  const env = { ...process.env, NO_COLOR: '1', OPENSPEC_TELEMETRY: '0' };
  const openspecBin = path.join(ROOT, 'node_modules/.bin/openspec');
  const ways = [
    { name: 'node, doing nothing', argv: [process.execPath, '-e', ''] },
    {
      name: 'list floor (node)',
      argv: [process.execPath, path.join(ROOT, 'bench/lib/list-floor.mjs')],
    },
    { name: 'ralphtool list', argv: [process.execPath, cli, 'list'] },
    ...(baseline ? [{ name: 'baseline list', argv: [process.execPath, baseline, 'list'] }] : []),
    { name: 'ralphtool --version', argv: [process.execPath, cli, '--version'] },
    ...(baseline
      ? [{ name: 'baseline --version', argv: [process.execPath, baseline, '--version'] }]
      : []),
    ...(withOpenspec && existsSync(openspecBin)
      ? [{ name: 'openspec list', argv: [openspecBin, 'list'] }]
      : []),
  ];
  const samples = new Map(ways.map((w) => [w.name, []]));
  for (let r = 0; r < rounds; r++) {
    // Taking turns going first, so that neither always runs on a warm cache.
    const order = r % 2 === 0 ? ways : [...ways].reverse();
    for (const way of order) {
      const start = process.hrtime.bigint();
      const result = spawnSync(way.argv[0], way.argv.slice(1), { cwd: repo, env, stdio: 'pipe' });
      const elapsed = Number(process.hrtime.bigint() - start) / 1e6;
      if (result.status !== 0) {
        throw new Error(`${way.name} failed: ${String(result.stderr).slice(0, 400)}`);
      }
      samples.get(way.name).push(elapsed);
    }
  }
  const floor = median(samples.get('node, doing nothing'));
  const rows = ways.map((w) => [
    w.name,
    spread(samples.get(w.name)),
    ratio(median(samples.get(w.name)), floor),
  ]);
  process.stdout.write(`list on ${changes} changes (${files} files), ${rounds} rounds\n\n`);
  process.stdout.write(`${table(['way', 'wall time', 'vs node'], rows)}\n\n${load.report()}\n`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
