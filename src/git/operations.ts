import { RuntimeError } from '../core/errors.js';
import { git } from './git.js';
import type { GitContext } from './git.js';
import { operationsInProgress } from './status.js';
import type { GitOperation } from './status.js';

/**
 * Forgets merges, rebases, cherry-picks, reverts and `am` sessions left half-done, without
 * touching HEAD, the files or any branch (`--quit`): the caller decides what the tree becomes.
 * Bisect is not handled here because ending it checks out a commit; see `endBisect`.
 */
export async function quitOperations(ctx: GitContext, gitDir: string): Promise<GitOperation[]> {
  const quitting = (await operationsInProgress(gitDir)).filter((op) => op !== 'bisect');
  for (const operation of quitting) {
    // Quitting one operation may end another (they share the sequencer), so failures are
    // judged by what is left afterwards rather than one by one.
    await git(ctx, [operation, '--quit'], { allowFailure: true });
  }
  const left = (await operationsInProgress(gitDir)).filter((op) => op !== 'bisect');
  if (left.length > 0) {
    throw new RuntimeError(
      `could not leave the ${left.join(', ')} in progress in ${gitDir}: run \`git ${left[0]} --abort\` and try again`,
    );
  }
  return quitting;
}

/** Ends a bisect session while staying where HEAD is now (`git bisect reset HEAD`). */
export async function endBisect(ctx: GitContext, gitDir: string): Promise<boolean> {
  if (!(await operationsInProgress(gitDir)).includes('bisect')) return false;
  await git(ctx, ['bisect', 'reset', 'HEAD'], { context: 'could not end the bisect in progress' });
  return true;
}
