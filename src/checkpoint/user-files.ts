import { mkdir, lstat } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../core/errors.js';
import { commitTree } from '../git/commit.js';
import { git } from '../git/git.js';
import type { GitContext } from '../git/git.js';
import { GitError } from '../git/git-error.js';
import {
  addedOrChanged,
  changedPaths,
  emptyTree,
  hashRaw,
  isRegularFile,
  treeEntries,
  treeFrom,
  writeRawBlob,
} from '../git/raw-files.js';
import type { TreeEntry } from '../git/raw-files.js';
import { refCommit, resolveCommit, treeOf } from '../git/repo.js';
import type { HeadPosition, RepoLocation } from '../git/repo.js';
import { snapshotWorkTree } from '../git/snapshot.js';
import {
  flaggedChangedFiles,
  indexTree,
  setIndexEntries,
  unmergedPaths,
} from '../git/user-index.js';
import type { RunPaths } from './paths.js';
import { indexFile, scratchContext } from './run-git.js';
import type { RunGit } from './run-git.js';
import { snapshotRefusal } from './snapshot-refusal.js';

/**
 * `refs/ralphtool/<change>/user-bytes`: the user's uncommitted and untracked files as their
 * exact bytes (no filter, no end-of-line conversion) at the start. Git's attributes and config
 * may store a file as other bytes than it has (`core.autocrlf`, `text=auto`, `eol=`, `ident`,
 * clean filters) and a checkout then writes other bytes back; these are put back instead.
 */
export function userBytesRef(change: string): string {
  return `refs/ralphtool/${change}/user-bytes`;
}

/** `refs/ralphtool/<change>/user-index`: what the user had staged at the start (their index). */
export function userIndexRef(change: string): string {
  return `refs/ralphtool/${change}/user-index`;
}

interface StartPlace {
  change: string;
  ctx: GitContext;
  repo: RepoLocation;
  paths: RunPaths;
}

/**
 * Before the start moves HEAD: refuses (UsageError, nothing changed) what no snapshot can hold
 * exactly, then saves the user's files as their raw bytes and their index (what is staged)
 * under refs, so that reverts and the cleanup can give both back exactly.
 */
export async function protectUserFiles(at: StartPlace, head: HeadPosition): Promise<void> {
  const { ctx, repo, paths, change } = at;
  await mkdir(paths.dir, { recursive: true });
  const conflicts = await unmergedPaths(ctx);
  if (conflicts.length > 0) {
    throw new UsageError(
      `${conflicts[0] ?? ''} has an unresolved conflict in the index: resolve it (\`git add\` or \`git checkout --theirs/--ours\`, see \`git status\`) before starting a run`,
    );
  }
  const flagged = (await flaggedChangedFiles(ctx, repo.root))[0];
  if (flagged) {
    const clear =
      flagged.flag === 'assume-unchanged' ? '--no-assume-unchanged' : '--no-skip-worktree';
    throw new UsageError(
      `${flagged.path} is marked ${flagged.flag} and differs from the index, so no snapshot would hold it: clear the flag with \`git update-index ${clear} -- ${flagged.path}\` (set it again after the run), then start again`,
    );
  }
  const headTree = head.kind === 'unborn' ? await emptyTree(ctx) : await treeOf(ctx, head.sha);
  let files: string;
  try {
    files = await snapshotWorkTree(ctx, {
      scratchDir: paths.dir,
      startIndex: indexFile(repo),
      baseTree: head.kind === 'unborn' ? null : headTree,
      strict: true,
    });
  } catch (error) {
    if (error instanceof GitError && !error.timedOut && !error.aborted) {
      throw snapshotRefusal(error.stderr);
    }
    throw error;
  }
  const parents = head.kind === 'unborn' ? [] : [head.sha];

  const changed = (await addedOrChanged(ctx, headTree, files)).filter(isRegularFile);
  const raw = await hashRaw(
    ctx,
    changed.map((entry) => entry.path),
    true,
  );
  const rawEntries = changed.map((entry) => ({ ...entry, sha: raw.get(entry.path) ?? entry.sha }));
  await saveOrForget(
    ctx,
    userBytesRef(change),
    rawEntries.length === 0
      ? null
      : async () => {
          const tree = await treeFrom(ctx, paths.dir, rawEntries);
          return commitTree(
            ctx,
            tree,
            parents,
            `ralphtool: your files' bytes at the start of ${change}`,
          );
        },
  );

  const staged = await indexTree(ctx, indexFile(repo), paths.dir);
  await saveOrForget(
    ctx,
    userIndexRef(change),
    staged === headTree
      ? null
      : () =>
          commitTree(
            ctx,
            staged,
            parents,
            `ralphtool: what you had staged at the start of ${change}`,
          ),
  );
}

/**
 * After a revert or the cleanup: every file the user had uncommitted or untracked at the start
 * and that the run's commits left unchanged (same entry in `base` and `current`) gets its exact
 * bytes back where a checkout wrote others. Returns the paths rewritten.
 */
export async function restoreUserBytes(
  g: RunGit,
  base: string | null,
  current: string,
): Promise<string[]> {
  if (base === null) return [];
  // Read off disk when it can be (a revert asks each time; most runs have no such ref).
  const saved = await refCommit(g.ctx, g.repo, userBytesRef(g.change));
  if (saved === null) return [];
  const touched = await changedPaths(
    g.ctx,
    await treeOf(g.ctx, base),
    await treeOf(g.ctx, current),
  );
  const candidates: TreeEntry[] = [];
  const missing: TreeEntry[] = [];
  for (const entry of await treeEntries(g.ctx, await treeOf(g.ctx, saved))) {
    if (touched.has(entry.path)) continue;
    const stats = await lstat(join(g.repo.root, entry.path)).catch(() => null);
    if (stats === null) missing.push(entry);
    else if (stats.isFile()) candidates.push(entry);
  }
  const onDisk = await hashRaw(
    g.ctx,
    candidates.map((entry) => entry.path),
    false,
  );
  const rewrite = [...missing, ...candidates.filter((e) => onDisk.get(e.path) !== e.sha)];
  // `unpack-file` writes into git's working directory: the run folder, never the user's tree.
  const scratch = scratchContext(g.ctx, g.paths.dir);
  for (const entry of rewrite) {
    await writeRawBlob(scratch, entry.sha, join(g.repo.root, entry.path), entry.mode === '100755');
  }
  return rewrite.map((entry) => entry.path);
}

/**
 * At the cleanup, after the run's work came back unstaged: the user's staged versions go back
 * into the index for the files neither the run nor a later commit on the original branch
 * changed. Returns a notice naming where the rest is saved, or null when all came back.
 */
export async function restoreStagedChanges(
  g: RunGit,
  opts: { startSha: string | null; base: string; tip: string },
): Promise<string | null> {
  const ref = userIndexRef(g.change);
  const saved = await resolveCommit(g.ctx, ref);
  if (saved === null) return null;
  const { ctx } = g;
  const startTree =
    opts.startSha === null ? await emptyTree(ctx) : await treeOf(ctx, opts.startSha);
  const stagedTree = await treeOf(ctx, saved);
  const staged = await changedPaths(ctx, startTree, stagedTree);
  const head = await resolveCommit(ctx, 'HEAD');
  const headTree = head === null ? await emptyTree(ctx) : await treeOf(ctx, head);
  const moved = new Set([
    ...(await changedPaths(ctx, await treeOf(ctx, opts.base), await treeOf(ctx, opts.tip))),
    ...(await changedPaths(ctx, startTree, headTree)),
  ]);
  const back = [...staged].filter((path) => !moved.has(path));
  const entries = (await treeEntries(ctx, stagedTree)).filter((e) => back.includes(e.path));
  const present = new Set(entries.map((e) => e.path));
  await setIndexEntries(
    ctx,
    entries,
    back.filter((path) => !present.has(path)),
  );
  const left = [...staged].filter((path) => moved.has(path));
  if (left.length === 0) {
    await forgetRef(ctx, ref);
    return null;
  }
  return stagedNotice(ref, left);
}

/** For `keep`: where the staged versions of the start are, if anything was staged. */
export async function stagedKeptNotice(g: RunGit): Promise<string | null> {
  const ref = userIndexRef(g.change);
  const saved = await resolveCommit(g.ctx, ref);
  if (saved === null) return null;
  const parent = await resolveCommit(g.ctx, `${saved}^`);
  const from = parent === null ? await emptyTree(g.ctx) : await treeOf(g.ctx, parent);
  const staged = [...(await changedPaths(g.ctx, from, await treeOf(g.ctx, saved)))];
  return stagedNotice(ref, staged);
}

/** The raw bytes are only needed while the run can still revert or clean up. */
export async function forgetUserBytes(g: RunGit): Promise<void> {
  await forgetRef(g.ctx, userBytesRef(g.change));
}

function stagedNotice(ref: string, paths: readonly string[]): string {
  const shown = paths.slice(0, 3).join(', ') + (paths.length > 3 ? ', …' : '');
  return `what you had staged at the start (${shown}) is saved as ${ref}: stage it again with \`git restore --staged --source=${ref} -- <path>\``;
}

async function saveOrForget(
  ctx: GitContext,
  ref: string,
  make: (() => Promise<string>) | null,
): Promise<void> {
  if (make === null) return forgetRef(ctx, ref);
  const sha = await make();
  await git(ctx, ['update-ref', '-m', 'ralphtool: start', ref, sha], {
    context: 'could not save your files before the run',
  });
}

async function forgetRef(ctx: GitContext, ref: string): Promise<void> {
  await git(ctx, ['update-ref', '-d', ref], { allowFailure: true });
}
