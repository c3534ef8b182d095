import { lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { git } from '../git/git.js';
import type { RunGit } from './run-git.js';

/**
 * The files an attempt stopped tracking the way git does it — taken out of the index
 * (`git rm --cached config.json`, committed or not) while kept on disk, and ignored by the
 * rules the attempt left — so that the accept, which rebuilds the index from the checkpoint and
 * the files, does not track them again (with whatever local values they hold now). Read before
 * the accept resets the index. A file merely added to `.gitignore` stays tracked, as in git.
 */
export async function stoppedTracking(g: RunGit, checkpoint: string): Promise<string[]> {
  const out = await git(
    g.ctx,
    ['diff-index', '--cached', '-z', '--no-renames', '--name-only', '--diff-filter=D', checkpoint],
    { allowFailure: true },
  );
  if (out.exitCode !== 0) return [];
  const gone = out.stdout.split('\0').filter((path) => path !== '');
  const onDisk: string[] = [];
  for (const path of gone) {
    if ((await lstat(join(g.repo.root, path)).catch(() => null)) !== null) onDisk.push(path);
  }
  if (onDisk.length === 0) return [];
  // --no-index: the rules alone decide (these paths are in the index again by then).
  const ignored = await git(g.ctx, ['check-ignore', '--no-index', '-z', '--stdin'], {
    input: onDisk.map((path) => `${path}\0`).join(''),
    allowFailure: true,
  });
  return ignored.stdout.split('\0').filter((path) => path !== '');
}

/** Takes them out of the index again after `add -A` put them back. */
export async function untrack(g: RunGit, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  await git(g.ctx, ['update-index', '-z', '--force-remove', '--stdin'], {
    input: paths.map((path) => `${path}\0`).join(''),
    context: 'could not leave the files the attempt stopped tracking out of the checkpoint',
  });
}
