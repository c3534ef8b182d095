import { assertValidChangeName } from '../core/change-name.js';
import { RuntimeError, UsageError } from '../core/errors.js';
import { ralphBranch, runPaths } from '../run/paths.js';
import { readRunState } from '../run/state.js';
import { CheckpointRun } from './checkpoint.js';
import type { RunOptions } from './checkpoint.js';
import { locateRepo } from './repo.js';
import { notInRepo } from './run-git.js';

/** Loads a recorded run of `change` (for resume, finish and status); it is not changed. */
export async function openRun(opts: RunOptions): Promise<CheckpointRun> {
  const change = assertValidChangeName(opts.change);
  const base = { timeoutMs: opts.timeoutMs, ...(opts.env ? { env: opts.env } : {}) };
  const repo = await locateRepo({ cwd: opts.cwd, ...base });
  if (!repo) throw notInRepo(opts.cwd);
  const paths = runPaths(repo.gitCommonDir, change);
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
  return new CheckpointRun(repo, paths, state, base);
}
