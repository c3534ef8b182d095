import { readdirSync, readlinkSync, realpathSync } from 'node:fs';
import path from 'node:path';
import { isZombie, listPids, processCwd, processName } from '../process/proc.js';
import { refWriterPids } from './ref-writer.js';

/** A live process that may own a git lock file. */
export interface LockHolder {
  pid: number;
  /** Its command name (`git`, `code`, …), or `a process` when /proc does not tell. */
  name: string;
}

/**
 * The live process that holds `lock` (a `*.lock` file of git), or null when none is found.
 * Git keeps the lock file open while it writes it, so a process with it open holds it. A git
 * process working in the repository (`root`) counts too: git closes the lock while it waits
 * for an editor or a hook and still owns it. Linux /proc only; elsewhere nothing is found.
 */
export function lockHolder(lock: string, root: string): LockHolder | null {
  const file = realLockPath(lock);
  // ralphtool's own ref writers wait in the repository between transactions, holding nothing.
  const writers = refWriterPids();
  let fallback: LockHolder | null = null;
  for (const pid of listPids()) {
    if (pid === process.pid || isZombie(pid)) continue;
    if (hasOpen(pid, file)) return { pid, name: processName(pid) ?? 'a process' };
    if (fallback === null && !writers.has(pid) && isGitIn(pid, root)) {
      fallback = { pid, name: 'git' };
    }
  }
  return fallback;
}

/** How a holder is named in messages: `git (pid 123)`. */
export function describeHolder(holder: LockHolder): string {
  return `${holder.name} (pid ${holder.pid})`;
}

/** /proc shows open files by their real path: resolve the folder (the file may be gone). */
function realLockPath(lock: string): string {
  try {
    return path.join(realpathSync(path.dirname(lock)), path.basename(lock));
  } catch {
    return lock;
  }
}

function hasOpen(pid: number, file: string): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false; // gone, or not ours to read
  }
  for (const fd of fds) {
    try {
      if (readlinkSync(`/proc/${pid}/fd/${fd}`) === file) return true;
    } catch {
      // closed meanwhile
    }
  }
  return false;
}

function isGitIn(pid: number, root: string): boolean {
  const name = processName(pid);
  if (name === null || (name !== 'git' && !name.startsWith('git-'))) return false;
  const cwd = processCwd(pid);
  return cwd !== null && (cwd === root || cwd.startsWith(`${root}/`));
}
