#!/usr/bin/env node
// What `--sandbox` costs per attempt at start-up: an agent that does nothing (`true`) started
// as ralphtool starts it, contained (the runtime's wrap, which scans for protected files, then
// bubblewrap, its proxy bridges and seccomp) and not, one after the other, median of --rounds.
// Also the once-per-run set-up (the runtime's proxy and the probe). Uses the built modules:
// dist/ beside it, or a frozen copy of a build (--dist /tmp/snap/dist) to set builds side by side.
//   node bench/sandbox-startup.mjs [--rounds 30] [--json out.json] [--dist dir]
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL, URL } from 'node:url';
import { loadWatch } from './lib/load.mjs';

const arg = (name, fallback) => {
  const at = process.argv.indexOf(name);
  return at === -1 ? fallback : process.argv[at + 1];
};
const rounds = Number(arg('--rounds', '30'));
const dist = arg('--dist', null);
const built = (file) =>
  dist === null
    ? new URL(`../dist/${file}`, import.meta.url)
    : pathToFileURL(path.resolve(dist, file));
const { sandboxPolicy } = await import(built('core/sandbox-policy.js'));
const { execProgram } = await import(built('process/exec.js'));
const { openSandbox } = await import(built('process/sandbox.js'));
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const ms = (start) => Number(process.hrtime.bigint() - start) / 1e6;

const tree = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-bench-sandbox-'));
const env = process.env;
const home = env.HOME ?? os.homedir();

const load = loadWatch();
const setUp = process.hrtime.bigint();
const session = await openSandbox([], env);
const setUpMs = ms(setUp);

const plain = [];
const wrapOnly = [];
const contained = [];
const ends = [];
for (let i = 0; i < rounds; i += 1) {
  let start = process.hrtime.bigint();
  await execProgram('true', [], { cwd: tree, baseEnv: env });
  plain.push(ms(start));

  start = process.hrtime.bigint();
  const command = await session.wrap(['true'], tree, (tmpDir) =>
    sandboxPolicy({
      agent: 'claude',
      place: { home, workTree: tree, gitDir: `${tree}/.git`, gitCommonDir: `${tree}/.git`, tmpDir },
      env,
      allowHosts: [],
      extraDenyRead: [],
    }),
  );
  wrapOnly.push(ms(start));
  await execProgram(command.program, command.args, { cwd: command.cwd, baseEnv: env });
  const ended = process.hrtime.bigint();
  await command.done();
  ends.push(ms(ended));
  contained.push(ms(start));
}
await session.release();
rmSync(tree, { recursive: true, force: true });

const result = {
  rounds,
  setUpOncePerRunMs: Math.round(setUpMs),
  plainMs: Number(median(plain).toFixed(1)),
  wrapMs: Number(median(wrapOnly).toFixed(1)),
  endMs: Number(median(ends).toFixed(1)),
  containedMs: Number(median(contained).toFixed(1)),
  addedPerAttemptMs: Number((median(contained) - median(plain)).toFixed(1)),
};
const out = arg('--json', null);
if (out)
  writeFileSync(out, JSON.stringify({ ...result, plain, wrapOnly, ends, contained }, null, 2));
process.stdout.write(
  [
    `sandbox set-up, once per run (proxy + probe): ${result.setUpOncePerRunMs} ms`,
    `an attempt's start, median of ${rounds}: plain ${result.plainMs} ms · contained ${result.containedMs} ms (of which the wrap ${result.wrapMs} ms, the end ${result.endMs} ms) · added ${result.addedPerAttemptMs} ms`,
    load.report(),
    '',
  ].join('\n'),
);
