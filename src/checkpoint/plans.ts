/**
 * The git sequences of a story as ordered lists of named steps (journal.ts runs them). Pure: a
 * plan depends only on what is known when the sequence begins, and the steps' names are those of
 * docs/git-protocol.md's numbered lists ("Accept", "Revert").
 */

/** Start, once the record says where the user was: the run's branch and its first commit. */
export const START_STEPS = [
  // `git checkout -q -B ralph/<change>`: the files stay as they are.
  'create-branch',
  // Everything, uncommitted and untracked files of the user included, as "initial state".
  'initial-commit',
  'pin',
] as const;
export type StartStep = (typeof START_STEPS)[number];

/**
 * The cleanup of a run in a worktree of its own: its work into the user's work tree, then the
 * worktree and the branch given back (docs/git-protocol.md, "Bringing the work home").
 */
export const HOME_CLEANUP_STEPS = [
  // The user's tree merged with the checkpoint, the difference written into their files only.
  'apply-home',
  // The worktree detached at the checkpoint, so the branch can go even if the worktree stays.
  'free-branch',
  // Unless --keep-worktree; one holding files no commit has is kept, and said.
  'remove-worktree',
  'delete-branch',
  'forget-user-bytes',
] as const;
export type HomeCleanupStep = (typeof HOME_CLEANUP_STEPS)[number];

/** What decides a sequence's plan. */
export interface PlanInputs {
  /** The sequence was entered before and is being finished after a crash. */
  resumed: boolean;
  /**
   * No git command moved HEAD or the branch or wrote the index since the attempt began at the
   * checkpoint (git-dir-watch.ts): they are known to be at the checkpoint, so the steps that put
   * them there are not planned. Never true for a resumed sequence.
   */
  untouched: boolean;
}

/** Accept: the work tree as the story's checkpoint commit, one commit per story. */
export const ACCEPT_STEPS = [
  // Resumed only: a commit of this very accept made before the crash is taken as it is.
  'find-own-commit',
  // Half-done merges and rebases would turn the checkpoint into a merge commit.
  'quit-operations',
  // Files the attempt untracked the git way (`git rm --cached`) stay untracked.
  'read-stopped-tracking',
  // Files only a branch switch of the agent changed get the checkpoint's version back.
  'undo-branch-switch',
  // HEAD on the run's branch, the branch at the checkpoint, the files as the agent left them.
  'branch-to-checkpoint',
  'index-to-checkpoint',
  // Repositories the attempt created are committed as plain files, never as gitlinks.
  'detach-nested',
  'commit',
  'end-bisect',
  // The ignored tasks.md's bytes at the new checkpoint, and the pin ref on it.
  'remember-ignored-tasks',
  'pin',
] as const;
export type AcceptStep = (typeof ACCEPT_STEPS)[number];

const ACCEPT_FULL_PATH_ONLY: readonly AcceptStep[] = [
  'read-stopped-tracking',
  'undo-branch-switch',
  'branch-to-checkpoint',
  'index-to-checkpoint',
  // Untouched, the index is the checkpoint's: the commit finds the nested repositories in what
  // `add -A` staged (accept.ts), without a listing of the untracked files first.
  'detach-nested',
];

export function planAccept(inputs: PlanInputs): AcceptStep[] {
  const fast = inputs.untouched && !inputs.resumed;
  return ACCEPT_STEPS.filter((step) => {
    if (step === 'find-own-commit') return inputs.resumed;
    return !(fast && ACCEPT_FULL_PATH_ONLY.includes(step));
  });
}

/** Revert: the attempt saved under its ref, then everything back to the checkpoint. */
export const REVERT_STEPS = [
  // Repositories the attempt created: their .git into the run folder, their files saved as files.
  'detach-nested',
  // Files, untracked files and the attempt's own commits, under the attempt's ref.
  'save',
  // The same when untouched: the index is the checkpoint's and there are no commits to keep.
  'save-at-checkpoint',
  'quit-operations',
  // The branch at the checkpoint, HEAD on it, the index reset (files only the attempt tracked
  // become untracked; ignored ones stay).
  'branch-to-checkpoint',
  // The checkpoint's own files rewritten.
  'files-to-checkpoint',
  // Untracked files saved (those only the attempt's .gitignore hid) and removed.
  'clean-untracked',
  'end-bisect',
  // The user's exact bytes where git's filters rewrote them, and the ignored tasks.md.
  'user-bytes',
  'ignored-tasks',
] as const;
export type RevertStep = (typeof REVERT_STEPS)[number];

/** Untouched, the save at the checkpoint finds nested repositories in what it took (revert.ts). */
const REVERT_FULL_PATH_ONLY: readonly RevertStep[] = [
  'detach-nested',
  'save',
  'branch-to-checkpoint',
];

export function planRevert(inputs: PlanInputs): RevertStep[] {
  const fast = inputs.untouched && !inputs.resumed;
  return REVERT_STEPS.filter((step) =>
    fast ? !REVERT_FULL_PATH_ONLY.includes(step) : step !== 'save-at-checkpoint',
  );
}

/** Cleanup: back to the original branch with all the work as uncommitted changes. */
export const CLEANUP_STEPS = [
  // Files on disk the checkout of the original branch would write over, into the run folder.
  'shelter-untracked',
  'checkout-original',
  // The run's work as changes (`merge --squash`), unstaged.
  'squash',
  // An original branch without commits: HEAD back to its name, the index emptied.
  'to-unborn-original',
  // The exact bytes and the staged versions of the user's own files of the start.
  'user-bytes',
  'staged-changes',
  'delete-branch',
  'bring-sheltered-back',
  // The shelter's list goes once everything is back (a later cleanup must not take it for its own).
  'forget-shelter',
  'forget-user-bytes',
] as const;
export type CleanupStep = (typeof CLEANUP_STEPS)[number];

const CLEANUP_BORN_ONLY: readonly CleanupStep[] = [
  'shelter-untracked',
  'checkout-original',
  'squash',
];

export function planCleanup(inputs: {
  /** The original branch has no commit: there is nothing to check out or squash onto. */
  unbornOriginal: boolean;
}): CleanupStep[] {
  return CLEANUP_STEPS.filter((step) =>
    inputs.unbornOriginal ? !CLEANUP_BORN_ONLY.includes(step) : step !== 'to-unborn-original',
  );
}

/**
 * `--resolve-conflicts`: the branch onto the user's work tree, the conflicts left for the agent's
 * story (docs/git-protocol.md, "Bringing a colliding change home"; resolve-home.ts).
 */
export const RESOLVE_STEPS = [
  // The commit T (the merge with conflict markers, tasks.md with the story) and what it merged.
  'resolve-commit',
  // The worktree's branch, index and files at T.
  'move-branch',
  'pin',
] as const;
export type ResolveStep = (typeof RESOLVE_STEPS)[number];

/** The resolve story not done: the branch back at the checkpoint before it. */
export const UNRESOLVE_STEPS = ['branch-back', 'pin'] as const;
export type UnresolveStep = (typeof UNRESOLVE_STEPS)[number];
