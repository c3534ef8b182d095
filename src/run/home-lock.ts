import path from 'node:path';
import type { CheckpointRun } from '../checkpoint/index.js';
import { acquireLock } from './lock.js';

/**
 * The cleanup of a run in a worktree of its own writes into the user's work tree: meanwhile no
 * other ralphtool may work there (a run of another change in that work tree would take the
 * files for its agent's and revert them; two cleanups would write at once). Takes that work
 * tree's lock (the file `lockWorkTree` in session.ts takes) around `apply`, unless the command
 * holds it already (it started there). Any other run, or none: `apply` alone.
 */
export async function withHomeLock<T>(run: CheckpointRun, apply: () => Promise<T>): Promise<T> {
  const home = run.state.home;
  if (!home || home.gitDir === run.repo.gitDir) return apply();
  const change = run.change;
  const lock = await acquireLock(
    path.join(home.gitDir, 'ralphtool-worktree.lock'),
    change,
    (h) =>
      `ralphtool is running ${h.change} in your work tree ${home.root} (pid ${h.pid} on ${h.host}, since ${h.since}), so the work of ${run.branch} is not brought there now: the run stays recorded; once that run has ended, \`ralphtool finish ${change} --cleanup\``,
  );
  try {
    return await apply();
  } finally {
    await lock.release();
  }
}
