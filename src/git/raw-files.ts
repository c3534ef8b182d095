import { randomBytes } from 'node:crypto';
import { chmod, copyFile, mkdir, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { git, gitOut } from './git.js';
import type { GitContext } from './git.js';
import { errnoCode } from '../core/error-details.js';
import { RuntimeError } from '../core/errors.js';

/** One blob entry of a tree: a regular file (`100644`/`100755`), a link or a submodule. */
export interface TreeEntry {
  mode: string;
  sha: string;
  path: string;
}

/** Regular files only: links and submodules go through no filter, so they always round-trip. */
export function isRegularFile(entry: TreeEntry): boolean {
  return entry.mode === '100644' || entry.mode === '100755';
}

/** The empty tree of this repository's hash (sha1 or sha256), written if need be. */
export async function emptyTree(ctx: GitContext): Promise<string> {
  return gitOut(ctx, ['mktree'], { input: '' });
}

/** Paths whose entry differs between two trees (added, modified, deleted, type changed). */
export async function changedPaths(
  ctx: GitContext,
  from: string,
  to: string,
): Promise<Set<string>> {
  if (from === to) return new Set();
  const out = await git(ctx, ['diff-tree', '-r', '-z', '--no-renames', '--name-only', from, to]);
  return new Set(out.stdout.split('\0').filter((path) => path !== ''));
}

/** The entries of `to` that are new or different from `from` (deleted paths are not listed). */
export async function addedOrChanged(
  ctx: GitContext,
  from: string,
  to: string,
): Promise<TreeEntry[]> {
  const changed = await changedPaths(ctx, from, to);
  if (changed.size === 0) return [];
  return (await treeEntries(ctx, to)).filter((entry) => changed.has(entry.path));
}

/** Every non-tree entry of a tree, recursively. */
export async function treeEntries(ctx: GitContext, tree: string): Promise<TreeEntry[]> {
  const out = await git(ctx, ['ls-tree', '-r', '-z', '--full-tree', tree]);
  const entries: TreeEntry[] = [];
  for (const record of out.stdout.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab === -1) continue;
    const [mode = '', , sha = ''] = record.slice(0, tab).split(' ');
    entries.push({ mode, sha, path: record.slice(tab + 1) });
  }
  return entries;
}

/** Which of `paths` are submodules (gitlinks, mode 160000) in `commit`. */
export async function gitlinksAt(
  ctx: GitContext,
  commit: string,
  paths: readonly string[],
): Promise<Set<string>> {
  const out = await git(ctx, ['ls-tree', '-z', '--full-tree', commit, '--', ...paths]);
  const links = new Set<string>();
  for (const record of out.stdout.split('\0')) {
    const tab = record.indexOf('\t');
    if (tab !== -1 && record.startsWith('160000 ')) links.add(record.slice(tab + 1));
  }
  return links;
}

/**
 * Hashes files as their bytes are, without any filter or end-of-line conversion
 * (`hash-object --no-filters`); with `write`, stores them as blobs. One git process for all
 * paths, except those with a newline in their name, which `--stdin-paths` cannot carry.
 */
export async function hashRaw(
  ctx: GitContext,
  paths: readonly string[],
  write: boolean,
): Promise<Map<string, string>> {
  const args = ['hash-object', '--no-filters', ...(write ? ['-w'] : [])];
  const plain = paths.filter((path) => !path.includes('\n'));
  const hashes = new Map<string, string>();
  if (plain.length > 0) {
    const out = await git(ctx, [...args, '--stdin-paths'], {
      input: plain.map((path) => `${path}\n`).join(''),
      context: 'could not read your files',
    });
    const shas = out.stdout.split('\n').filter((line) => line !== '');
    plain.forEach((path, i) => hashes.set(path, shas[i] ?? ''));
  }
  for (const path of paths.filter((p) => p.includes('\n'))) {
    hashes.set(path, await gitOut(ctx, [...args, '--', path], { context: 'could not read' }));
  }
  return hashes;
}

/** A tree of these entries (and nothing else), through a temporary index in `scratchDir`. */
export async function treeFrom(
  ctx: GitContext,
  scratchDir: string,
  entries: readonly TreeEntry[],
): Promise<string> {
  const indexFile = join(scratchDir, `raw-index-${process.pid}-${randomBytes(4).toString('hex')}`);
  const env = { GIT_INDEX_FILE: indexFile };
  try {
    await git(ctx, ['update-index', '-z', '--index-info'], {
      env,
      input: entries.map((e) => `${e.mode} ${e.sha}\t${e.path}\0`).join(''),
      context: 'could not save your files',
    });
    return await gitOut(ctx, ['write-tree'], { env, context: 'could not save your files' });
  } finally {
    await rm(indexFile, { force: true });
  }
}

/**
 * Writes a blob's bytes, as they are (no filter, no conversion), over `target` (a path in the
 * work tree), keeping the file's mode when it exists. `git unpack-file` writes the blob into
 * `scratchDir` (git's output is read as text, which would spoil binary bytes).
 */
export async function writeRawBlob(
  scratch: GitContext,
  sha: string,
  target: string,
  executable: boolean,
): Promise<void> {
  const name = await gitOut(scratch, ['unpack-file', sha], { context: 'could not restore' });
  const temp = join(scratch.cwd, name);
  try {
    if ((await modeOf(temp)) === null) {
      throw new RuntimeError(`git unpack-file wrote ${name} elsewhere than ${scratch.cwd}`);
    }
    const mode = await modeOf(target);
    if (mode === null) await mkdir(dirname(target), { recursive: true });
    // copyFile gives the copy the source's mode (0600 from unpack-file): set it back after.
    await copyFile(temp, target);
    await chmod(target, mode ?? (executable ? 0o755 : 0o644));
  } finally {
    await rm(temp, { force: true });
  }
}

async function modeOf(path: string): Promise<number | null> {
  try {
    return (await stat(path)).mode & 0o7777;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null;
    throw error;
  }
}
