import { existsSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { RuntimeError } from '../core/errors.js';
import { listPids, processCwd, processName } from '../process/proc.js';
import type { RepoLocation } from './repo.js';
import { messageOf } from '../core/error-details.js';

/** How long a live git gets to release its index lock before it is judged stale. */
const WAIT_MS = 2_000;
const POLL_MS = 100;

/**
 * An agent killed in the middle of `git add` leaves `.git/index.lock` behind, and every
 * later git command that writes the index fails on it. Remove it, but only when no git
 * process is working in this repository (a live one would be corrupted by it).
 */
export async function clearStaleIndexLock(repo: RepoLocation): Promise<boolean> {
  const lock = path.join(repo.gitDir, 'index.lock');
  if (!existsSync(lock)) return false;
  for (let waited = 0; waited < WAIT_MS; waited += POLL_MS) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    if (!existsSync(lock)) return false;
  }
  const holder = gitProcessIn(repo.root);
  if (holder !== null) {
    throw new RuntimeError(
      `${lock} is held by a running git process (pid ${holder}): wait for it to finish, then retry`,
    );
  }
  try {
    await rm(lock, { force: true });
  } catch (error) {
    throw new RuntimeError(
      `cannot remove the stale ${lock}: ${messageOf(error)}; remove it by hand, then retry`,
    );
  }
  return true;
}

/** A git process whose working directory is inside `root` (Linux /proc), else null. */
function gitProcessIn(root: string): number | null {
  for (const pid of listPids()) {
    const name = processName(pid);
    if (name === null || (name !== 'git' && !name.startsWith('git-'))) continue;
    const cwd = processCwd(pid);
    if (cwd !== null && (cwd === root || cwd.startsWith(`${root}/`))) return pid;
  }
  return null;
}
