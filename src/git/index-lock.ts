import { statSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { RuntimeError } from '../core/errors.js';
import type { RepoLocation } from './repo.js';
import { messageOf } from '../core/error-details.js';
import { lockHolder } from './lock-holder.js';
import { LOCK_WAIT_MS, lockedTooLong } from './lock-retry.js';

/** How long a lock nobody holds must stay unchanged before it is judged stale. */
const STALE_MS = 2_000;
const POLL_MS = 100;

/**
 * An agent killed in the middle of `git add` leaves `.git/index.lock` behind, and every
 * later git command that writes the index fails on it. Remove it, but only when the very same
 * lock file stayed there for 2 s and no live process holds it (one with it open, or a git
 * working in this repository): removing a live process's lock would corrupt its index. A lock
 * that a live process holds is waited for, up to LOCK_WAIT_MS, then refused with its holder.
 */
export async function clearStaleIndexLock(repo: RepoLocation): Promise<boolean> {
  const lock = path.join(repo.gitDir, 'index.lock');
  const started = Date.now();
  let seen = identity(lock);
  let since = started;
  while (seen !== null) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    const now = identity(lock);
    if (now !== seen) {
      // Released, or released and taken again by someone else: a live lock, start over.
      seen = now;
      since = Date.now();
      continue;
    }
    if (lockHolder(lock, repo.root) !== null) {
      if (Date.now() - started >= LOCK_WAIT_MS) throw lockedTooLong(lock, repo.root);
      since = Date.now();
      continue;
    }
    if (Date.now() - since < STALE_MS) continue;
    // Checked once more right before removing: the same file, still nobody holding it.
    if (identity(lock) !== seen || lockHolder(lock, repo.root) !== null) continue;
    try {
      await rm(lock, { force: true });
    } catch (error) {
      throw new RuntimeError(
        `cannot remove the stale ${lock}: ${messageOf(error)}; remove it by hand, then retry`,
      );
    }
    return true;
  }
  return false;
}

/** Which lock file is there (inode and change time), or null when there is none. */
function identity(lock: string): string | null {
  try {
    const stat = statSync(lock, { bigint: true });
    return `${stat.dev}:${stat.ino}:${stat.ctimeNs}`;
  } catch {
    return null;
  }
}
