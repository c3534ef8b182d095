import { git } from '../git/git.js';
import { branchSha, headPosition } from '../git/repo.js';
import type { RunGit } from './run-git.js';
import type { RunState } from './state.js';
import { atOriginal } from './start-sequence.js';

/**
 * The cleanup of a run whose start stopped before its "initial state" commit (a crash, or a
 * commit git refused: an unreadable file, a failing filter). Nothing of the run exists yet, so
 * instead of completing the start (which may fail the same way again) the start is undone:
 * HEAD goes back to the original position without touching a file, what `add -A` staged is
 * unstaged, and the new branch is deleted. Returns false when the initial commit was made (or
 * HEAD is somewhere unexpected): the usual cleanup then applies.
 */
export async function undoStart(g: RunGit, state: RunState): Promise<boolean> {
  const { ctx } = g;
  const head = await headPosition(ctx);
  if (atOriginal(head, state)) return true; // `checkout -B` never happened
  const onRunBranch = head.kind !== 'detached' && head.name === g.branch;
  const noCommitYet =
    head.kind === 'unborn' ? state.originalSha === null : head.sha === state.originalSha;
  if (!onRunBranch || !noCommitYet) return false;

  // The run's branch is the original commit itself, so moving HEAD alone changes no file.
  const original = state.originalBranch;
  if (original.kind === 'detached') {
    await git(ctx, [
      'update-ref',
      '--no-deref',
      '-m',
      'ralphtool: undo start',
      'HEAD',
      original.sha,
    ]);
  } else {
    await git(ctx, [
      'symbolic-ref',
      '-m',
      'ralphtool: undo start',
      'HEAD',
      `refs/heads/${original.name}`,
    ]);
  }
  if (state.originalSha === null) {
    await git(ctx, ['read-tree', '--empty'], { context: 'could not unstage the files' });
  } else {
    // read-tree, not reset: reset re-hashes files whose timestamps are racy, through the clean
    // filter that may be why the start stopped; the index only needs to be the commit's again.
    await git(ctx, ['read-tree', state.originalSha], { context: 'could not unstage the files' });
  }
  if ((await branchSha(ctx, g.branch)) !== null) {
    await git(ctx, ['branch', '-q', '-D', g.branch], { context: `could not delete ${g.branch}` });
  }
  return true;
}
