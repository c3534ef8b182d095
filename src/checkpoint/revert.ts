import { commitTree } from '../git/commit.js';
import { git } from '../git/git.js';
import { endBisect, quitOperations } from '../git/operations.js';
import { branchSha, refCommit, resolveCommit, treeOf } from '../git/repo.js';
import { indexFile } from './run-git.js';
import type { RunGit } from './run-git.js';
import { snapshotWithListing, snapshotWorkTree } from '../git/snapshot.js';
import type { AddListing } from '../git/snapshot.js';
import { mkdir } from 'node:fs/promises';
import { ignoredInHistory, leaveIgnoredOutOfTree, leftOutNotice } from './leave-out.js';
import { detachNestedRepos, nestedNotice } from './nested-repos.js';
import type { Protection } from './repo-guard.js';

/** Enough for a .gitignore inside an untracked directory inside another; then give up. */
const MAX_CLEAN_PASSES = 4;

export interface RestoreResult {
  /** The ref holding the attempt's saved work. */
  savedRef: string;
  /** The commit the ref points at; its tree is the attempt's whole work tree. */
  savedSha: string;
}

export interface RestoreOptions {
  checkpoint: string;
  /** Where the attempt is saved: `refs/ralphtool/<change>/attempts/<story>-<attempt>`. */
  ref: string;
  /** `<story>-<attempt>`, for the saved commit's message. */
  label: string;
  /**
   * True when finishing a revert that was interrupted: a ref that already exists then holds
   * this attempt and is kept when nothing is left to save. Otherwise an existing ref (from an
   * earlier run) becomes a parent of the new save.
   */
  resuming: boolean;
  /** Files ignored at the start, kept out of the save and the clean; notices for the user. */
  protect: Protection;
  /**
   * True when no git command moved HEAD or the branch or wrote the index since the attempt
   * began at the checkpoint (on-disk.ts, `gitDirPrint`): HEAD, the branch and the index are
   * known to be at the checkpoint, so they are neither read nor put back.
   */
  untouched?: boolean;
}

/**
 * Saves everything an attempt left (files, untracked files, its own commits) under a ref,
 * then puts HEAD, the branch, the index and the files back to the checkpoint. Ignored files
 * are never touched. Safe to run again after an interruption: earlier saves stay reachable.
 */
export async function restoreCheckpoint(g: RunGit, opts: RestoreOptions): Promise<RestoreResult> {
  const { ctx, repo } = g;
  const { checkpoint, ref } = opts;
  const message = `ralphtool: attempt ${opts.label} of ${g.change}`;
  // The agent may have deleted the run folder, where the temporary indexes go.
  await mkdir(g.paths.dir, { recursive: true });
  // Repositories the attempt created: their .git to the run folder, their files saved below
  // as plain files (git would save a gitlink, or refuse), then removed by the clean.
  const { detached: nested, untracked } = await detachNestedRepos(g, opts.label);
  if (nested.length > 0) {
    const saved = `${g.paths.dir}/nested/${opts.label}/`;
    opts.protect.notices.push(
      nestedNotice(nested, saved, `saved their files under ${ref}, then removed them`),
    );
  }

  // 1. Save the attempt without touching the real index or the files. A revert resumed after
  //    its save (the ref's first-parent line reaches this checkpoint) keeps that save: the work
  //    tree may be half reverted already, and snapshotting it again would bury the attempt's work.
  const previous = await refCommit(ctx, repo, ref);
  if (opts.resuming && previous !== null && (await savedFrom(ctx, previous, checkpoint))) {
    return finishRestore(g, opts, previous, message);
  }
  // The checkpoint commit stands for its tree (`read-tree` takes either).
  const snapshot = await snapshotWithListing(ctx, {
    scratchDir: g.paths.dir,
    startIndex: indexFile(repo),
    baseTree: checkpoint,
    startIndexIsBase: opts.untouched === true,
  });
  const { tree, left } = await leaveIgnoredOutOfTree(
    g,
    opts.protect.guard,
    snapshot.tree,
    checkpoint,
    snapshot.listing,
  );
  if (left.length > 0) opts.protect.notices.push(leftOutNotice(left, `the save ${ref}`));
  const moved: string[] = [];
  const tips = opts.untouched
    ? []
    : [await resolveCommit(ctx, 'HEAD'), await branchSha(ctx, g.branch)];
  for (const sha of tips) {
    if (sha === null || sha === checkpoint) continue;
    // The attempt's own commits are kept as parents, unless one holds a file ignored at the start.
    const held = await ignoredInHistory(g, opts.protect.guard, sha, checkpoint);
    if (held.length === 0) moved.push(sha);
    else
      opts.protect.notices.push(
        leftOutNotice(held, `the save ${ref} (with the commits holding them)`),
      );
  }
  let saved = previous;
  const nothingNew =
    opts.resuming && moved.length === 0 && tree === (await treeOf(ctx, checkpoint));
  if (saved === null || !nothingNew) {
    const parents = unique([checkpoint, ...moved, ...(previous ? [previous] : [])]);
    saved = await commitTree(ctx, tree, parents, message);
    await updateRef(g, ref, saved);
  }

  return finishRestore(
    g,
    opts,
    saved,
    message,
    knownAfterSave(opts, snapshot.listing, left, untracked),
  );
}

/**
 * What the save tells about the clean to come: the files it took as they are now (they need
 * not be saved again), and when the reset changes no ignore rule and no tracked file list, the
 * untracked files the nested-repository search listed (they are what the clean finds).
 */
function knownAfterSave(
  opts: RestoreOptions,
  listing: AddListing | null,
  left: readonly string[],
  untracked: readonly string[] | null,
): KnownUntracked | null {
  if (listing === null || left.length > 0) return null;
  const rules = [...listing.added, ...listing.removed].some(isIgnoreFile);
  return {
    inSave: listing.added,
    // The reset only rewrites tracked files when HEAD and the index stayed at the checkpoint.
    untracked: opts.untouched && !rules ? untracked : null,
  };
}

function isIgnoreFile(path: string): boolean {
  return path === '.gitignore' || path.endsWith('/.gitignore');
}

interface KnownUntracked {
  /** Paths the save took from the work tree as they are now. */
  inSave: ReadonlySet<string>;
  /** The untracked files after the reset, when known without asking git again. */
  untracked: readonly string[] | null;
}

/** Steps 2 and 3 of a revert: back to the checkpoint, untracked files saved and removed. */
async function finishRestore(
  g: RunGit,
  opts: RestoreOptions,
  savedSoFar: string,
  message: string,
  known: KnownUntracked | null = null,
): Promise<RestoreResult> {
  const { ctx, repo } = g;
  const { checkpoint, ref } = opts;
  let saved = savedSoFar;
  // 2. Back to the checkpoint, whatever branch (or none) the attempt left HEAD on.
  await quitOperations(ctx, repo.gitDir);
  //    Not `checkout -f`: it deletes every file the attempt's HEAD tracks and the checkpoint does
  //    not, and an agent that force-added `.env` or `node_modules/` would lose the user's
  //    ignored files that way. Instead the branch is pointed at the checkpoint, the index reset
  //    to it (files only the attempt tracked become untracked, and ignored ones stay), and only
  //    then the checkpoint's own files are rewritten.
  if (!opts.untouched) {
    await git(
      ctx,
      ['update-ref', '-m', 'ralphtool: revert', `refs/heads/${g.branch}`, checkpoint],
      { context: `could not return to ${g.branch}` },
    );
    await git(ctx, ['symbolic-ref', '-m', 'ralphtool: revert', 'HEAD', `refs/heads/${g.branch}`], {
      context: `could not return to ${g.branch}`,
    });
    await git(ctx, ['reset', '-q', '--mixed', checkpoint, '--'], {
      context: 'could not reset the index',
    });
  }
  await git(ctx, ['reset', '-q', '--hard', checkpoint], { context: 'could not reset the files' });

  // 3. Remove untracked files, saving first any the save above missed: those that only the
  //    attempt's own .gitignore hid. Removing an untracked .gitignore can reveal more, hence
  //    the passes; what stays ignored by the checkpoint's rules (.env, node_modules) is kept.
  let lastList: string | null = null;
  const { guard } = opts.protect;
  for (let pass = 0; pass < MAX_CLEAN_PASSES; pass++) {
    // Files ignored at the start are never saved nor cleaned, even when no longer ignored.
    const all = (pass === 0 ? known?.untracked : null) ?? (await untrackedFiles(g));
    const untracked = all.filter((path) => !guard.isIgnoredAtStart(path));
    // One pathspec per recorded entry (`node_modules/`), not per file below it.
    const entries = new Set(all.map((path) => guard.ignoredEntryOf(path)));
    const keep = [...entries]
      .filter((entry): entry is string => entry !== null)
      .map((entry) => `:(exclude,literal)${entry.replace(/\/$/, '')}`);
    const list = untracked.join('\0');
    if (list === lastList) break; // nothing new was revealed: what is left cannot be cleaned
    lastList = list;
    // The first clean always runs (empty folders the attempt made are no files, yet removed).
    if (untracked.length === 0 && pass > 0) break;
    // The save took each of these files as it is now (the attempt's own .gitignore hid none).
    const inSave = known?.inSave;
    const savedAlready = inSave !== undefined && untracked.every((path) => inSave.has(path));
    if (untracked.length > 0 && !savedAlready) {
      const savedTree = await treeOf(ctx, saved);
      const combined = await snapshotWorkTree(ctx, {
        scratchDir: g.paths.dir,
        startIndex: null,
        baseTree: savedTree,
        only: untracked,
      });
      if (combined !== savedTree) {
        saved = await commitTree(ctx, combined, [saved], `${message} (files it ignored)`);
        await updateRef(g, ref, saved);
      }
    }
    await git(ctx, ['clean', '-q', '-f', '-d', '--', '.', ...keep], {
      context: 'could not remove untracked files',
    });
    // Only removing a .gitignore can reveal more files to clean.
    if (!untracked.some(isIgnoreFile)) break;
  }
  await endBisect(ctx, repo.gitDir);
  return { savedRef: ref, savedSha: saved };
}

/** Untracked files that are not ignored: what `git clean -fd` is about to remove. */
async function untrackedFiles(g: RunGit): Promise<string[]> {
  const out = await git(g.ctx, ['ls-files', '-z', '--others', '--exclude-standard']);
  return out.stdout.split('\0').filter((path) => path !== '');
}

/** Whether a save was made from this checkpoint (a save, then up to a few "files it ignored"). */
async function savedFrom(ctx: RunGit['ctx'], save: string, checkpoint: string): Promise<boolean> {
  const depth = String(MAX_CLEAN_PASSES + 2);
  const out = await git(ctx, ['rev-list', '--first-parent', '-n', depth, save]);
  return out.stdout.split('\n').includes(checkpoint);
}

async function updateRef(g: RunGit, ref: string, sha: string): Promise<void> {
  await git(g.ctx, ['update-ref', '-m', 'ralphtool: save attempt', ref, sha], {
    context: 'could not save the attempt',
  });
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}
