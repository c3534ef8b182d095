import { RuntimeError, UsageError } from '../core/errors.js';
import { ralphBranch } from './paths.js';
import { readRunState } from './state.js';
import { CheckpointRun } from './checkpoint.js';
import type { RunLocation } from './types.js';
import { locateRun } from './run-git.js';

/** Loads a recorded run of `change` (for resume, finish and status); it is not changed. */
export async function openRun(opts: RunLocation): Promise<CheckpointRun> {
  const { change, repo, engine, paths } = await locateRun(opts);
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
  return new CheckpointRun(repo, paths, state, engine);
}
