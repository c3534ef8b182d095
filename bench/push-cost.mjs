#!/usr/bin/env node
// What one push of `--push` costs, alone: the run's remote sync of a BUILT ralphtool
// (dist/run/remote/remote-sync.js) pushes a new checkpoint, its record and the claim's lease to
// a bare repository on the same disk, N times; each push's CPU is split into ralphtool's own
// (node: the spawns, the record's files) and that of the processes it waited for (git here and
// the receiving side). The checkpoint commits are made by this script with the same commands
// for every build, and their cost measured first and taken off.
//
// With --baseline, a second build's pushes take turns with this one's, round by round.
//
//   node bench/push-cost.mjs [--rounds 3] [--pushes 30]
//                            [--cli path/to/dist/cli/main.js] [--baseline other/dist/cli/main.js]
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';
import { pathToFileURL } from 'node:url';
import { cliPath, option } from './lib/args.mjs';
import { loadWatch } from './lib/load.mjs';
import { median, table } from './lib/stats.mjs';

const rounds = Number(option('rounds', '3'));
const pushes = Number(option('pushes', '30'));
const baseline = option('baseline', null);
const builds = [
  { name: 'this build', cli: cliPath() },
  ...(baseline === null ? [] : [{ name: 'baseline', cli: path.resolve(baseline) }]),
];
const load = loadWatch();

/** The CPU of this process's waited-for children so far, in ms (/proc/self/stat). */
function childrenCpuMs() {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1].split(' ');
  const tick = 1000 / 100; // USER_HZ
  return (Number(fields[13]) + Number(fields[14])) * tick;
}
function ownCpuMs() {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

async function once(build) {
  const dist = path.dirname(path.dirname(build.cli));
  const load = (file) => import(pathToFileURL(path.join(dist, file)).href);
  const { runPaths, writeRunState } = await load('checkpoint/index.js');
  const { initialRunState } = await load('checkpoint/start.js');
  const { createRemoteSync } = await load('run/remote/remote-sync.js');
  const { newClaimInfo, pushClaim } = await load('remote/claim.js');
  const work = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-bench-push-cost-'));
  const env = { ...process.env, HOME: work, GIT_CONFIG_NOSYSTEM: '1' };
  const git = (cwd, ...args) => execFileSync('git', args, { cwd, env, encoding: 'utf8' }).trim();
  try {
    const repo = path.join(work, 'repo');
    const origin = path.join(work, 'origin.git');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    git(repo, 'config', 'user.name', 'Bench');
    git(repo, 'config', 'user.email', 'bench@example.com');
    for (let i = 0; i < 20; i++) writeFileSync(path.join(repo, `f${i}.txt`), `${i}\n`);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'initial commit');
    git(work, 'init', '-q', '--bare', '-b', 'main', origin);
    git(origin, 'config', 'receive.unpackLimit', '1');
    git(repo, 'remote', 'add', 'origin', origin);
    git(repo, 'push', '-q', 'origin', 'main');
    git(repo, 'branch', 'ralph/c');
    const paths = runPaths(path.join(repo, '.git'), 'c');
    mkdirSync(paths.promptsDir, { recursive: true });
    writeFileSync(paths.learnings, '# learnings\n');
    const head = git(repo, 'rev-parse', 'HEAD');
    const state = {
      ...initialRunState('c', 'ralph/c', { kind: 'branch', name: 'main', sha: head }),
      step: null,
      baseSha: head,
      checkpointSha: head,
    };
    await writeRunState(paths.state, state);
    const ctx = { cwd: repo, timeoutMs: 120_000, baseEnv: env, identity: { settings: null } };
    const claim = await pushClaim(ctx, 'origin', newClaimInfo('c', new Date()), '');
    let failed = 0;
    const sync = createRemoteSync({
      remote: 'origin',
      change: 'c',
      ctx,
      paths,
      gitCommonDir: path.join(repo, '.git'),
      next: (e) => (failed += e.type === 'remote.push-failed' ? 1 : 0),
      carryMs: 0,
      gapMs: 0,
      claimSha: () => claim.sha,
      secrets: async () => [],
    });
    await sync.flush();
    // One story's worth of change: a prompt, a commit on ralph/c, the state naming it.
    const step = async (i, tag) => {
      writeFileSync(path.join(paths.promptsDir, `${tag}${i}-1.md`), `prompt ${i}\n`.repeat(50));
      writeFileSync(path.join(repo, 'story.txt'), `${tag}${i}\n`);
      git(repo, 'add', '-A');
      git(repo, 'commit', '-qm', `${tag}${i}`);
      const sha = git(repo, 'rev-parse', 'HEAD');
      git(repo, 'update-ref', 'refs/heads/ralph/c', sha);
      await writeRunState(paths.state, { ...state, checkpointSha: sha });
    };
    const c0 = childrenCpuMs();
    const o0 = ownCpuMs();
    for (let i = 0; i < pushes; i++) await step(i, 'a');
    const c1 = childrenCpuMs();
    const o1 = ownCpuMs();
    for (let i = 0; i < pushes; i++) {
      await step(i, 'b');
      await sync.flush();
    }
    const c2 = childrenCpuMs();
    const o2 = ownCpuMs();
    sync.close();
    if (failed > 0) throw new Error(`${failed} pushes failed`);
    return {
      children: (c2 - c1 - (c1 - c0)) / pushes,
      own: (o2 - o1 - (o1 - o0)) / pushes,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

for (const build of builds) build.samples = [];
for (let r = 0; r < rounds; r++) {
  for (let k = 0; k < builds.length; k++) {
    const build = builds[(k + r) % builds.length];
    process.stderr.write(`round ${r + 1}/${rounds}: ${build.name}\n`);
    build.samples.push(await once(build));
  }
}
const f = (v) => `${v.toFixed(1)} ms`;
const rows = builds.map((b) => {
  const own = median(b.samples.map((s) => s.own));
  const children = median(b.samples.map((s) => s.children));
  const total = median(b.samples.map((s) => s.own + s.children));
  return [b.name, f(own), f(children), f(total)];
});
process.stdout.write(
  `${table(['', 'ralphtool (node) per push', 'git and the remote per push', 'CPU per push'], rows)}\n${pushes} pushes, ${rounds} rounds, medians\n${load.report()}\n`,
);
