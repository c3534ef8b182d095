import { git } from '../git/git.js';
import { assertValidChangeName } from '../core/change-name.js';
import { setOwnRef, type RunGit } from './run-git.js';

/**
 * `refs/ralphtool/<change>/checkpoint`: the run's checkpoint, held by a ref of ralphtool's own.
 * The branch alone is not enough: an agent that resets `ralph/<change>`, expires the reflog and
 * runs `git gc --prune=now` would let git delete the checkpoints — and with them the "initial
 * state" commit holding the user's uncommitted work — leaving nothing to go back to or to give
 * back. Every checkpoint's history (back to the original commit) is reachable from this ref.
 */
export function checkpointPinRef(change: string): string {
  return `refs/ralphtool/${assertValidChangeName(change)}/checkpoint`;
}

/** Points the pin at a new checkpoint (before the record says so: the pin may run ahead). */
export async function pinCheckpoint(g: RunGit, sha: string): Promise<void> {
  // No reflog message: git keeps no reflog for refs outside heads/ and remotes/.
  await setOwnRef(
    g,
    checkpointPinRef(g.change),
    sha,
    `could not keep the checkpoint of ${g.change} under a ref`,
  );
}

/**
 * Once the run has ended, its branch (or nothing) holds what it needs. Best effort: a run in a
 * worktree of its own may have given that worktree back already (then the ref stays, holding
 * commits its branch holds too).
 */
export async function unpinCheckpoint(g: RunGit): Promise<void> {
  await git(g.ctx, ['update-ref', '-d', checkpointPinRef(g.change)], {
    allowFailure: true,
  }).catch(() => undefined);
}
