import { randomBytes } from 'node:crypto';
import { copyFile, lstat, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { git, gitOut } from './git.js';
import type { GitContext } from './git.js';
import type { TreeEntry } from './raw-files.js';

/** Paths with a conflict in the index (stage 1-3 entries). */
export async function unmergedPaths(ctx: GitContext): Promise<string[]> {
  const out = await git(ctx, ['ls-files', '-u', '-z']);
  const paths = out.stdout
    .split('\0')
    .filter((record) => record.includes('\t'))
    .map((record) => record.slice(record.indexOf('\t') + 1));
  return [...new Set(paths)];
}

export interface FlaggedFile {
  path: string;
  flag: 'assume-unchanged' | 'skip-worktree';
}

/**
 * Files marked `assume-unchanged` or `skip-worktree` whose bytes in the work tree differ from
 * their index entry. `git add -A` does not see such a change, so no snapshot would hold it.
 * A skip-worktree file absent from the work tree (sparse checkout) is not a change.
 */
export async function flaggedChangedFiles(ctx: GitContext, root: string): Promise<FlaggedFile[]> {
  const out = await git(ctx, ['ls-files', '-v', '-s', '-z']);
  const flagged: { path: string; sha: string; flag: FlaggedFile['flag'] }[] = [];
  for (const record of out.stdout.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab === -1) continue;
    const [tag = '', , sha = ''] = record.slice(0, tab).split(' ');
    const skip = tag === 'S' || tag === 's';
    const assume = tag !== tag.toUpperCase();
    if (!skip && !assume) continue;
    flagged.push({
      path: record.slice(tab + 1),
      sha,
      flag: skip ? 'skip-worktree' : 'assume-unchanged',
    });
  }
  const present: typeof flagged = [];
  for (const entry of flagged) {
    const stats = await lstat(join(root, entry.path)).catch(() => null);
    if (stats?.isFile() === true) present.push(entry);
  }
  if (present.length === 0) return [];
  // Hashed as `git add` would (filters and conversions of the path), to compare with the index.
  const hashed = await git(ctx, ['hash-object', '--stdin-paths'], {
    input: present.map((entry) => `${entry.path}\n`).join(''),
    context: 'could not read your files',
  });
  const shas = hashed.stdout.split('\n');
  return present
    .filter((entry, i) => shas[i] !== entry.sha)
    .map(({ path, flag }) => ({ path, flag }));
}

/**
 * The tree of the index (what is staged), written from a copy so that the user's index file
 * is not rewritten. Fails on an index with conflicts (see `unmergedPaths`).
 */
export async function indexTree(
  ctx: GitContext,
  indexPath: string,
  scratchDir: string,
): Promise<string> {
  const copy = join(scratchDir, `user-index-${process.pid}-${randomBytes(4).toString('hex')}`);
  try {
    await copyFile(indexPath, copy).catch((error: unknown) => {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    });
    return await gitOut(ctx, ['write-tree'], {
      env: { GIT_INDEX_FILE: copy },
      config: ['core.splitIndex=false'],
      context: 'could not read your staged changes',
    });
  } finally {
    await rm(copy, { force: true });
  }
}

/**
 * Sets these index entries (the real index) to the given blobs, and removes the `removed`
 * paths, without touching the files: used to put staged versions back.
 */
export async function setIndexEntries(
  ctx: GitContext,
  entries: readonly TreeEntry[],
  removed: readonly string[],
): Promise<void> {
  const context = 'could not restore your staged changes';
  if (entries.length > 0) {
    await git(ctx, ['update-index', '-z', '--index-info'], {
      input: entries.map((e) => `${e.mode} ${e.sha}\t${e.path}\0`).join(''),
      context,
    });
  }
  if (removed.length > 0) {
    await git(ctx, ['update-index', '-z', '--force-remove', '--stdin'], {
      input: removed.map((path) => `${path}\0`).join(''),
      context,
    });
  }
}
