import { resolve } from 'node:path';
import { RuntimeError } from '../core/errors.js';
import { git, gitOut } from './git.js';
import type { GitContext } from './git.js';
import { refOnDisk } from './on-disk.js';

/** Where a repository lives; all paths absolute, so they work from linked worktrees too. */
export interface RepoLocation {
  /** Top-level directory of the work tree. */
  root: string;
  /** This work tree's git directory (`.git`, or `.git/worktrees/<name>` in a linked worktree). */
  gitDir: string;
  /** The directory shared by all work trees (where ralphtool keeps its state). */
  gitCommonDir: string;
}

/** Where HEAD points: a branch (with its commit), a detached commit, or a branch with no commit yet. */
export type HeadPosition =
  | { kind: 'branch'; name: string; sha: string }
  | { kind: 'detached'; sha: string }
  | { kind: 'unborn'; name: string };

/** Finds the repository around `ctx.cwd`; null when `cwd` is not inside a git work tree. */
export async function locateRepo(ctx: GitContext): Promise<RepoLocation | null> {
  // One process (every command starts with this): outside a work tree git refuses
  // --show-toplevel (inside .git, a bare repository) or everything (no repository).
  const result = await git(
    ctx,
    [
      'rev-parse',
      '--is-inside-work-tree',
      '--show-toplevel',
      '--absolute-git-dir',
      '--git-common-dir',
    ],
    { allowFailure: true },
  );
  if (result.exitCode !== 0) return null;
  const [inside, root, gitDir, commonDir] = result.stdout.replace(/\n$/, '').split('\n');
  if (inside !== 'true' || !root || !gitDir || !commonDir) return null;
  // --git-common-dir may be relative to the directory git ran in.
  return { root, gitDir, gitCommonDir: resolve(ctx.cwd, commonDir) };
}

/** The commit a revision names, or null when it names none (e.g. HEAD of an unborn branch). */
export async function resolveCommit(ctx: GitContext, rev: string): Promise<string | null> {
  const result = await git(
    ctx,
    ['rev-parse', '-q', '--verify', '--end-of-options', `${rev}^{commit}`],
    {
      allowFailure: true,
    },
  );
  return result.exitCode === 0 ? result.stdout.trim() : null;
}

/**
 * The commit a full ref name (`refs/…`) points at, read off disk when git's files say it
 * (on-disk.ts), else from git; null when there is no such ref.
 */
export async function refCommit(
  ctx: GitContext,
  repo: RepoLocation,
  ref: string,
): Promise<string | null> {
  const onDisk = await refOnDisk(repo, ref);
  return onDisk === undefined ? resolveCommit(ctx, ref) : onDisk;
}

/** The tree of a commit. */
export async function treeOf(ctx: GitContext, commit: string): Promise<string> {
  return gitOut(ctx, ['rev-parse', '--verify', '--end-of-options', `${commit}^{tree}`]);
}

export async function headPosition(ctx: GitContext): Promise<HeadPosition> {
  const symbolic = await git(ctx, ['symbolic-ref', '-q', 'HEAD'], { allowFailure: true });
  const sha = await resolveCommit(ctx, 'HEAD');
  if (symbolic.exitCode === 0) {
    const ref = symbolic.stdout.trim();
    const name = ref.startsWith('refs/heads/') ? ref.slice('refs/heads/'.length) : ref;
    return sha ? { kind: 'branch', name, sha } : { kind: 'unborn', name };
  }
  if (!sha) {
    throw new RuntimeError(
      `HEAD of ${ctx.cwd} is neither a branch nor a commit: check \`git status\``,
    );
  }
  return { kind: 'detached', sha };
}

/** The commit a local branch points at, or null when there is no such branch. */
export async function branchSha(ctx: GitContext, branch: string): Promise<string | null> {
  const result = await git(ctx, ['rev-parse', '-q', '--verify', `refs/heads/${branch}^{commit}`], {
    allowFailure: true,
  });
  return result.exitCode === 0 ? result.stdout.trim() : null;
}

/** Parents and subject of a commit, to recognise a commit ralphtool made itself. */
export async function commitSummary(
  ctx: GitContext,
  commit: string,
): Promise<{ parents: string[]; subject: string }> {
  const out = await gitOut(ctx, ['log', '-1', '--format=%P%x00%s', commit, '--']);
  const [parents = '', subject = ''] = out.split('\0');
  return { parents: parents.split(' ').filter(Boolean), subject };
}

/**
 * Whether `ancestor` is in the history of `descendant` (equal counts). False when either is not
 * a commit this repository has.
 */
export async function isAncestor(
  ctx: GitContext,
  ancestor: string,
  descendant: string,
): Promise<boolean> {
  const result = await git(
    ctx,
    ['merge-base', '--is-ancestor', '--end-of-options', ancestor, descendant],
    { allowFailure: true },
  );
  return result.exitCode === 0;
}

/**
 * The branches that keep git from making `branch`: one named like a folder of it (`ralph` for
 * `ralph/add-auth`), or one under it (`ralph/add-auth/old`): a branch name cannot also be a
 * folder of branch names. Empty when there is none.
 */
export async function branchesInTheWay(ctx: GitContext, branch: string): Promise<string[]> {
  const parts = branch.split('/');
  const parents = parts.slice(0, -1).map((_, i) => `refs/heads/${parts.slice(0, i + 1).join('/')}`);
  const out = await git(ctx, [
    'for-each-ref',
    '--format=%(refname)',
    ...parents,
    `refs/heads/${branch}/`,
  ]);
  const found = out.stdout.split('\n').filter((ref) => ref !== '');
  return found
    .filter((ref) => parents.includes(ref) || ref.startsWith(`refs/heads/${branch}/`))
    .map((ref) => ref.slice('refs/heads/'.length));
}
