import { RuntimeError, UsageError } from '../core/errors.js';
import { ralphBranch } from './paths.js';
import { readRunState } from './state.js';
import { CheckpointRun } from './checkpoint.js';
import type { RunLocation } from './types.js';
import { locateRun } from './run-git.js';
import { assertRunWorktree } from './worktrees.js';

/**
 * Loads a recorded run of `change` (for resume, finish and status); it is not changed. An
 * active run is refused from another work tree than its own, naming `ralphtool -C <its
 * root> <retry>` (`retry` defaults to `resume <change>`).
 */
export async function openRun(opts: RunLocation & { retry?: string }): Promise<CheckpointRun> {
  const { change, repo, ctx, engine, paths } = await locateRun(opts);
  const state = await readRunState(paths.state);
  if (!state) {
    throw new UsageError(
      `no run of ${change} is recorded in this repository: start one with \`ralphtool run ${change}\` (see \`ralphtool status\`)`,
    );
  }
  if (state.change !== change || state.branch !== ralphBranch(change)) {
    throw new RuntimeError(
      `run state ${paths.state} belongs to ${state.change}, not ${change}: delete the folder ${paths.dir}`,
    );
  }
  if (
    state.status === 'active' &&
    state.home &&
    state.home.gitDir === repo.gitDir &&
    state.step?.op !== 'cleanup'
  ) {
    // Never the user's own work tree: a repair or a revert there would land on their files.
    // (A cleanup under way whose worktree is gone carries on from there: it touches no
    // worktree any more, only the user's files through its own checks.)
    throw new UsageError(
      `the run of ${change} works in a worktree of its own (${state.worktree?.root ?? 'missing'}), not in your work tree: continue it with \`ralphtool ${opts.retry ?? `resume ${change}`}\``,
    );
  }
  await assertRunWorktree(ctx, repo, state, opts.retry ?? `resume ${change}`);
  return new CheckpointRun(repo, paths, state, engine);
}
