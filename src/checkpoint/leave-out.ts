import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { git, gitOut } from '../git/git.js';
import type { RepoGuard } from './repo-guard.js';
import type { RunGit } from './run-git.js';
import type { AddListing } from '../git/snapshot.js';

/** What was left out of a tree or an index: the paths, as git names them. */
export interface LeftOut {
  tree: string;
  left: string[];
}

/**
 * The tree without the files that were ignored when the run started (an agent that un-ignored
 * `.env` made `add -A` pick it up): a secret never enters a saved attempt.
 */
export async function leaveIgnoredOutOfTree(
  g: RunGit,
  guard: RepoGuard,
  tree: string,
  checkpoint: string,
  /** What `add -A` added to the checkpoint's files to make `tree` (snapshot.ts), when known. */
  listing: AddListing | null = null,
): Promise<LeftOut> {
  if (guard.ignored.length === 0) return { tree, left: [] };
  const candidates = listing
    ? [...listing.added].filter((path) => guard.isIgnoredAtStart(path))
    : await ignoredIn(g, guard, tree);
  const left = await notInCheckpoint(g, checkpoint, candidates);
  if (left.length === 0) return { tree, left };
  await mkdir(g.paths.dir, { recursive: true });
  const indexFile = join(
    g.paths.dir,
    `leave-out-index-${process.pid}-${randomBytes(4).toString('hex')}`,
  );
  const env = { GIT_INDEX_FILE: indexFile };
  const context = 'could not leave ignored files out of the saved attempt';
  try {
    await git(g.ctx, ['read-tree', tree], { env, context });
    await unstage(g, left, env);
    return { tree: await gitOut(g.ctx, ['write-tree'], { env, context }), left };
  } finally {
    await rm(indexFile, { force: true });
    await rm(`${indexFile}.lock`, { force: true });
  }
}

/**
 * The paths ignored at the start that some commit between `checkpoint` and `tip` holds (an
 * agent that un-ignored `.env` and committed it): such a commit is not kept as a parent of a
 * saved attempt, or the secret would be reachable from the attempt's ref.
 */
export async function ignoredInHistory(
  g: RunGit,
  guard: RepoGuard,
  tip: string,
  checkpoint: string,
): Promise<string[]> {
  if (guard.ignored.length === 0) return [];
  // One process for any number of commits: a file some commit of the range holds and the
  // checkpoint does not was added by a commit of the range (a root commit lists all its files).
  const changed = await git(
    g.ctx,
    ['log', '--format=', '--name-only', '-z', '--no-renames', tip, `^${checkpoint}`, '--'],
    { config: ['log.showRoot=true'] },
  );
  const found = new Set(
    changed.stdout
      .split('\0')
      .map((path) => path.replace(/^\n+/, '')) // some versions put a newline between commits
      .filter((path) => path !== '' && guard.isIgnoredAtStart(path)),
  );
  return notInCheckpoint(g, checkpoint, [...found]);
}

/**
 * Takes the files that were ignored at the start out of the real index; returns them. With
 * the listing of the `add -A` that staged the work tree onto an index at the checkpoint, only
 * what it added can be such a file; without it, the whole index is read.
 */
export async function leaveIgnoredOutOfIndex(
  g: RunGit,
  guard: RepoGuard,
  checkpoint: string,
  listing: AddListing | null = null,
): Promise<string[]> {
  if (guard.ignored.length === 0) return [];
  const staged = listing
    ? [...listing.added]
    : (await git(g.ctx, ['ls-files', '-z', '--cached'])).stdout.split('\0');
  const candidates = staged.filter((path) => path !== '' && guard.isIgnoredAtStart(path));
  const left = await notInCheckpoint(g, checkpoint, candidates);
  if (left.length > 0) await unstage(g, left, {});
  return left;
}

/** The files of a tree (or commit) that were ignored at the start. */
async function ignoredIn(g: RunGit, guard: RepoGuard, treeish: string): Promise<string[]> {
  const listed = await git(g.ctx, ['ls-tree', '-r', '-z', '--name-only', treeish]);
  return listed.stdout.split('\0').filter((path) => path !== '' && guard.isIgnoredAtStart(path));
}

/**
 * Those of `paths` the checkpoint does not hold: a file the checkpoint already tracks (the user
 * committed it on purpose between two runs) is no secret to keep out.
 */
async function notInCheckpoint(
  g: RunGit,
  checkpoint: string,
  paths: readonly string[],
): Promise<string[]> {
  if (paths.length === 0) return [];
  const listed = await git(g.ctx, ['ls-tree', '-r', '-z', '--name-only', checkpoint]);
  const tracked = new Set(listed.stdout.split('\0'));
  return paths.filter((path) => !tracked.has(path));
}

async function unstage(g: RunGit, paths: readonly string[], env: Record<string, string>) {
  await git(g.ctx, ['rm', '-q', '--cached', '--pathspec-from-file=-', '--pathspec-file-nul'], {
    env: { ...env, GIT_LITERAL_PATHSPECS: '1' },
    input: paths.map((path) => `${path}\0`).join(''),
    context: 'could not leave ignored files out',
  });
}

/** The notice for files left out of a commit or a save. */
export function leftOutNotice(left: readonly string[], where: string): string {
  const shown =
    left.slice(0, 5).join(', ') + (left.length > 5 ? ` and ${left.length - 5} more` : '');
  return `${shown}: ignored when the run started but no longer ignored after the attempt (its .gitignore or exclude rules changed); ralphtool left ${left.length === 1 ? 'it' : 'them'} out of ${where} and on disk as ${left.length === 1 ? 'it is' : 'they are'} — check your ignore rules before committing`;
}
