import { RuntimeError } from '../core/errors.js';
import type { RunState } from './state.js';
import { commitEverything } from '../git/commit.js';
import { git } from '../git/git.js';
import { commitSummary, headPosition } from '../git/repo.js';
import type { HeadPosition } from '../git/repo.js';
import type { RunGit } from './run-git.js';

export const INITIAL_STATE_MESSAGE = 'initial state';

/**
 * Steps 2-3 of "Start" (docs/git-protocol.md): `checkout -B ralph/<change>`, then commit
 * everything as "initial state"; returns that commit. Re-entrant: after an interruption it carries on from wherever
 * HEAD is (still at the original position, on the new branch, or already committed).
 */
export async function completeStart(g: RunGit, state: RunState): Promise<string> {
  const { ctx } = g;
  const head = await headPosition(ctx);
  const onRunBranch = head.kind !== 'detached' && head.name === g.branch;
  if (!onRunBranch) {
    if (!atOriginal(head, state)) {
      throw new RuntimeError(
        `the start of ${g.change} was interrupted and HEAD has moved since: switch back to where you started and run \`ralphtool resume ${g.change}\`, or delete ${g.paths.dir}`,
      );
    }
    await git(ctx, ['checkout', '-q', '-B', g.branch], {
      context: `could not create the branch ${g.branch}`,
    });
    return commitEverything(ctx, INITIAL_STATE_MESSAGE);
  }
  if (head.kind === 'unborn' || head.sha === state.originalSha) {
    return commitEverything(ctx, INITIAL_STATE_MESSAGE);
  }
  const summary = await commitSummary(ctx, head.sha);
  const expectedParents = state.originalSha ? [state.originalSha] : [];
  if (
    summary.subject === INITIAL_STATE_MESSAGE &&
    summary.parents.join(' ') === expectedParents.join(' ')
  ) {
    return head.sha;
  }
  throw new RuntimeError(
    `the start of ${g.change} was interrupted and ${g.branch} points at an unexpected commit ${head.sha}: delete the branch and ${g.paths.dir}, then start again`,
  );
}

/**
 * True when HEAD is where the run recorded the user was: for a run in its own worktree, where
 * that worktree was created (detached at the user's commit).
 */
export function atOriginal(head: HeadPosition, state: RunState): boolean {
  if (state.home) return head.kind === 'detached' && head.sha === state.originalSha;
  const original = state.originalBranch;
  switch (original.kind) {
    case 'branch':
      return head.kind === 'branch' && head.name === original.name;
    case 'detached':
      return head.kind === 'detached' && head.sha === original.sha;
    case 'unborn':
      return head.kind !== 'detached' && head.name === original.name;
  }
}
