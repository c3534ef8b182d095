import { randomBytes } from 'node:crypto';
import { copyFile, rm, stat, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { git, gitOut } from './git.js';
import type { GitContext } from './git.js';
import { errnoCode } from '../core/error-details.js';

export interface SnapshotOptions {
  /** Directory for the temporary index (ralphtool's run folder, inside the git directory). */
  scratchDir: string;
  /** Index to start from, for its cached file stats (the work tree's real index); null for none. */
  startIndex: string | null;
  /** Tree whose files are tracked before `add -A` (so deleted files count as deleted); null for none. */
  baseTree: string | null;
  /**
   * The start index is known to hold `baseTree` already (nothing wrote it since it was reset
   * there): the copy is used as it is, without a `read-tree`.
   */
  startIndexIsBase?: boolean;
  /** Add only these paths (taken literally) instead of the whole work tree. */
  only?: readonly string[];
  /**
   * Keep the repository's `core.safecrlf` (the check before a start, which must refuse what
   * the start's `git add -A` would). Otherwise a save never fails on it: saving an attempt
   * whose files git would refuse must still work, or the attempt could never be reverted.
   */
  strict?: boolean;
}

/**
 * Writes the whole work tree (tracked changes and untracked, not ignored files) as a tree
 * object, through a temporary index: the real index, HEAD and the files stay untouched.
 */
export async function snapshotWorkTree(ctx: GitContext, opts: SnapshotOptions): Promise<string> {
  return (await snapshotWithListing(ctx, opts)).tree;
}

/** What `add -A` changed relative to `baseTree`: paths added or changed, and removed. */
export interface AddListing {
  added: ReadonlySet<string>;
  removed: ReadonlySet<string>;
}

/**
 * The snapshot's tree and what `add -A` changed relative to `baseTree` (read from `add
 * --verbose`); `listing` is null when git's output cannot be read back exactly (a path with a
 * newline), so that a caller never trusts a partial list.
 */
export async function snapshotWithListing(
  ctx: GitContext,
  opts: SnapshotOptions,
): Promise<{ tree: string; listing: AddListing | null }> {
  const indexFile = join(
    opts.scratchDir,
    `snapshot-index-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  const env = { GIT_INDEX_FILE: indexFile };
  // With core.splitIndex the temporary index would leave a shared index file in .git at
  // every save; written whole, it leaves nothing behind.
  const config = ['core.splitIndex=false', ...(opts.strict ? [] : ['core.safecrlf=false'])];
  const context = 'could not save the work tree';
  try {
    const copied = opts.startIndex !== null && (await copyIfPresent(opts.startIndex, indexFile));
    if (opts.baseTree !== null && !(copied && opts.startIndexIsBase)) {
      // `-m` keeps the copied stats of unchanged files, so `add -A` need not hash them again;
      // it refuses an index with conflicts, and then a plain read starts afresh.
      const merged =
        copied &&
        (await git(ctx, ['read-tree', '-m', opts.baseTree], { env, config, allowFailure: true }))
          .exitCode === 0;
      if (!merged) await git(ctx, ['read-tree', opts.baseTree], { env, config, context });
    }
    if (opts.only) {
      await git(ctx, ['add', '--pathspec-from-file=-', '--pathspec-file-nul'], {
        env: { ...env, GIT_LITERAL_PATHSPECS: '1' },
        config,
        input: opts.only.map((path) => `${path}\0`).join(''),
        context,
      });
      return { tree: await gitOut(ctx, ['write-tree'], { env, config, context }), listing: null };
    }
    const listing = await git(ctx, ['add', '-A', '--verbose'], { env, config, context });
    const tree = await gitOut(ctx, ['write-tree'], { env, config, context });
    return { tree, listing: readAddListing(listing.stdout) };
  } finally {
    await rm(indexFile, { force: true });
    await rm(`${indexFile}.lock`, { force: true });
  }
}

/** `add '<path>'` / `remove '<path>'` lines, paths as they are; null on any other line. */
export function readAddListing(output: string): AddListing | null {
  const added = new Set<string>();
  const removed = new Set<string>();
  for (const line of output.split('\n')) {
    if (line === '') continue;
    const match = /^(add|remove) '(.+)'$/.exec(line);
    if (!match?.[2]) return null;
    (match[1] === 'add' ? added : removed).add(match[2]);
  }
  return { added, removed };
}

/**
 * Copies an index and gives the copy the original's modification time, floored to the second.
 * Git trusts a cached stat only for entries older than the index file itself ("racy git"): a
 * file rewritten with the same size in the same second as the checkout is re-read because its
 * mtime is not older than the index. A fresh copy would be newer than such entries, so git
 * would trust their stale stats and save the old content; an older copy only makes git re-read
 * a few more files.
 */
async function copyIfPresent(from: string, to: string): Promise<boolean> {
  try {
    const { mtimeMs } = await stat(from);
    await copyFile(from, to);
    const seconds = Math.floor(mtimeMs / 1000);
    await utimes(to, seconds, seconds);
    return true;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return false;
    throw error;
  }
}
