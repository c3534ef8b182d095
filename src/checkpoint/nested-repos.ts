import { lstatSync } from 'node:fs';
import { lstat, mkdir, rename } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { errnoCode } from '../core/error-details.js';
import { git } from '../git/git.js';
import { gitlinksAt } from '../git/raw-files.js';
import type { AddListing } from '../git/snapshot.js';
import type { RunGit } from './run-git.js';

/** A repository inside a repository inside …: enough levels, then give up. */
const MAX_LEVELS = 4;

/**
 * Repositories the attempt created inside the work tree (`git init sub`, `git clone … lib`, a
 * scaffolding tool): untracked, not ignored folders holding a `.git`. Git would record one
 * with a commit as a gitlink (a submodule with no `.gitmodules`, whose files no clone can
 * get) and refuses one without a commit. So each one stops being a repository: its `.git`
 * (the nested history, every byte of it) is moved to
 * `<run folder>/nested/<label>/<path>/.git`, and its files become plain files of the work
 * tree, which the accept commits or the revert saves and removes like any other.
 * Returns the paths of the repositories, for the report, and when there were none, the
 * untracked files the search listed (what `git clean` would remove, for a caller that needs
 * that list too).
 */
export async function detachNestedRepos(
  g: RunGit,
  label: string,
): Promise<{ detached: string[]; untracked: readonly string[] | null }> {
  const detached: string[] = [];
  for (let level = 0; level < MAX_LEVELS; level++) {
    const { repos: found, untracked } = await nestedRepos(g);
    if (found.length === 0) {
      // A folder entry that is no repository (`x/` without `.git` any more): not a file list.
      const files = level === 0 && !untracked.some((entry) => entry.endsWith('/'));
      return { detached, untracked: files ? untracked : null };
    }
    for (const path of found) {
      const target = await freeTarget(join(g.paths.dir, 'nested', label, path, '.git'));
      await mkdir(dirname(target), { recursive: true });
      await rename(join(g.repo.root, path, '.git'), target);
      detached.push(path);
    }
  }
  return { detached, untracked: null };
}

/**
 * Repositories the attempt made, found in what an `add -A` took rather than by a listing of the
 * untracked files before it (one git process less): a path taken that is a folder is a gitlink,
 * and one `checkpoint` did not have as a submodule is a repository the attempt made. For the
 * accept (what it staged) and the revert's save (what it took).
 */
export async function madeInListing(
  g: RunGit,
  checkpoint: string,
  listing: AddListing,
): Promise<string[]> {
  // Synchronous: one lstat per taken path, thousands when an attempt adds a dependency folder.
  const folders = [...listing.added].filter((path) =>
    lstatSync(join(g.repo.root, path), { throwIfNoEntry: false })?.isDirectory(),
  );
  if (folders.length === 0) return [];
  const submodules = await gitlinksAt(g.ctx, checkpoint, folders);
  return folders.filter((path) => !submodules.has(path));
}

/** The notice for repositories turned into plain folders. */
export function nestedNotice(paths: readonly string[], saved: string, what: string): string {
  return `the attempt created git repositories inside the work tree (${paths.join(', ')}); ralphtool moved their .git folders to ${saved} and ${what}`;
}

/**
 * Untracked, not ignored folders that hold a `.git` (a folder or a `gitdir:` file), and the
 * untracked entries listed.
 */
async function nestedRepos(g: RunGit): Promise<{ repos: string[]; untracked: string[] }> {
  // Without --directory: a plain new folder is then listed file by file, and only a nested
  // repository is listed as one `path/` entry (with --directory, `new/sub/` hides in `new/`).
  const out = await git(g.ctx, ['ls-files', '-z', '--others', '--exclude-standard']);
  const untracked = out.stdout.split('\0').filter((entry) => entry !== '');
  const repos: string[] = [];
  for (const entry of untracked) {
    if (!entry.endsWith('/')) continue;
    const path = entry.slice(0, -1);
    if (await exists(join(g.repo.root, path, '.git'))) repos.push(path);
  }
  return { repos, untracked };
}

/** The path itself, or with `-2`, `-3`, … when an earlier save took it. */
async function freeTarget(path: string): Promise<string> {
  for (let n = 1; ; n++) {
    const candidate = n === 1 ? path : `${path}-${n}`;
    if (!(await exists(candidate))) return candidate;
  }
}

async function exists(path: string): Promise<boolean> {
  try {
    await lstat(path);
    return true;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'ENOTDIR') return false;
    throw error;
  }
}
