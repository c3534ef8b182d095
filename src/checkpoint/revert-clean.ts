import { commitTree } from '../git/commit.js';
import { git } from '../git/git.js';
import { treeOf } from '../git/repo.js';
import type { AddListing } from '../git/snapshot.js';
import { snapshotWorkTree } from '../git/snapshot.js';
import type { Protection } from './repo-guard.js';
import type { RunGit } from './run-git.js';

/**
 * The revert's clean (plans.ts, `clean-untracked`): the attempt's untracked files removed after
 * the save, the ignored ones kept; what the save already told about them spares asking git.
 */

/** Enough for a .gitignore inside an untracked directory inside another; then give up. */
export const MAX_CLEAN_PASSES = 4;

/** What the clean is given of the save: where it stands, and what it took. */
export interface CleanSave {
  known: KnownUntracked | null;
  /** The save so far (the attempt's ref). */
  saved: string;
  /** The saved commit's message, which a second save of files it missed extends. */
  message: string;
  /** Points the attempt's ref at a new save the clean made (the revert's one way to move it). */
  moveSave: (sha: string) => Promise<void>;
}

/**
 * Removes untracked files, saving first any the save missed: those that only the attempt's
 * own .gitignore hid. Removing an untracked .gitignore can reveal more, hence the passes; what
 * stays ignored by the checkpoint's rules (.env, node_modules) is kept.
 */
export async function cleanUntracked(
  g: RunGit,
  opts: { protect: Protection },
  save: CleanSave,
): Promise<void> {
  const { known } = save;
  const { ctx } = g;
  let saved = save.saved;
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
        saved = await commitTree(ctx, combined, [saved], `${save.message} (files it ignored)`);
        await save.moveSave(saved);
      }
    }
    await git(ctx, ['clean', '-q', '-f', '-d', '--', '.', ...keep], {
      context: 'could not remove untracked files',
    });
    // Only removing a .gitignore can reveal more files to clean.
    if (!untracked.some(isIgnoreFile)) break;
  }
}

/**
 * What the save tells about the clean to come: the files it took as they are now (they need
 * not be saved again), and when the reset changes no ignore rule and no tracked file list, the
 * untracked files the clean finds: those the nested-repository search listed, or when none
 * ran, what the save took — more than the untracked files (the changed tracked ones too), yet
 * all the clean needs: every untracked file is among them and in the save, none is a
 * .gitignore, and none lies under an entry ignored at the start (the save left none out).
 */
export function knownAfterSave(
  atCheckpoint: boolean,
  listing: AddListing | null,
  left: readonly string[],
  untracked: readonly string[] | null,
): KnownUntracked | null {
  if (listing === null || left.length > 0) return null;
  const rules = [...listing.added, ...listing.removed].some(isIgnoreFile);
  return {
    inSave: listing.added,
    // The reset only rewrites tracked files when HEAD and the index stayed at the checkpoint.
    untracked: atCheckpoint && !rules ? (untracked ?? [...listing.added]) : null,
  };
}

function isIgnoreFile(path: string): boolean {
  return path === '.gitignore' || path.endsWith('/.gitignore');
}

export interface KnownUntracked {
  /** Paths the save took from the work tree as they are now. */
  inSave: ReadonlySet<string>;
  /** The untracked files after the reset, when known without asking git again. */
  untracked: readonly string[] | null;
}

/** Untracked files that are not ignored: what `git clean -fd` is about to remove. */
async function untrackedFiles(g: RunGit): Promise<string[]> {
  const out = await git(g.ctx, ['ls-files', '-z', '--others', '--exclude-standard']);
  return out.stdout.split('\0').filter((path) => path !== '');
}
