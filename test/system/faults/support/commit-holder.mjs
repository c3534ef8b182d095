#!/usr/bin/env node
// A real `git commit -a` waiting for its message: git holds .git/index.lock (with the file
// closed) while the editor runs. Usage: node commit-holder.mjs <repo> <signal-dir> <state-file> <op> <hold-ms>
//   waits for <signal-dir>/take, runs `git commit -a --allow-empty` in <repo> with this script
//   as the editor; the editor writes <signal-dir>/taken, waits until ralphtool's <state-file>
//   records a step <op>, holds hold-ms longer, notes whether git's lock is still there, and
//   fails (so the commit is aborted and git removes its own lock). Then <signal-dir>/result is
//   "intact" (the lock was still git's) or "stolen".
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import process from 'node:process';
import { writeWhole } from './write-whole.mjs';

const deadline = Date.now() + 300_000;
const quote = (word) => `'${word.replace(/'/g, `'\\''`)}'`;

if (process.argv[2] === 'editor') {
  const [, , , repo, dir, stateFile, op, holdMs] = process.argv;
  writeWhole(join(dir, 'taken'), String(process.ppid));
  while (stepOf(stateFile) !== op && Date.now() < deadline) await sleep(10);
  writeWhole(join(dir, 'step-seen'), op);
  await sleep(Number(holdMs));
  const intact = existsSync(join(repo, '.git', 'index.lock'));
  writeWhole(join(dir, 'result'), intact ? 'intact' : 'stolen');
  process.exit(1);
} else {
  const [repo, dir, stateFile, op, holdMs] = process.argv.slice(2);
  while (!existsSync(join(dir, 'take'))) {
    if (Date.now() > deadline) process.exit(3);
    await sleep(10);
  }
  const editor = [process.execPath, process.argv[1], 'editor', repo, dir, stateFile, op, holdMs];
  spawnSync('git', ['commit', '-a', '--allow-empty', '-q'], {
    cwd: repo,
    env: { ...process.env, GIT_EDITOR: editor.map(quote).join(' ') },
    stdio: 'ignore',
  });
}

function stepOf(file) {
  try {
    return JSON.parse(readFileSync(file, 'utf8')).step?.op ?? null;
  } catch {
    return null; // not written yet, or being replaced
  }
}
