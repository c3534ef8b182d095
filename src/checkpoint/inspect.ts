import { ralphBranch } from './paths.js';
import type { RunPaths } from './paths.js';
import { readRunState } from './state.js';
import type { RunState } from './state.js';
import type { CallOptions, RunLocation } from './types.js';
import { branchSha, headPosition } from '../git/repo.js';
import type { HeadPosition, RepoLocation } from '../git/repo.js';
import { locateRun } from './run-git.js';
import { operationInProgress, statusEntries } from '../git/status.js';
import type { GitOperation, StatusEntry } from '../git/status.js';

/** Where a repository stands with respect to one change's run (for status, doctor, resume). */
export interface RunInspection {
  repo: RepoLocation;
  paths: RunPaths;
  head: HeadPosition;
  /** `ralph/<change>` */
  branch: string;
  /** Where `ralph/<change>` points; null when there is no such branch. */
  branchSha: string | null;
  onRunBranch: boolean;
  /** The recorded checkpoint; null without a recorded run. */
  checkpointSha: string | null;
  /** HEAD is the run's branch at the recorded checkpoint (files aside). */
  atCheckpoint: boolean;
  /** No changed, staged or untracked (not ignored) file. */
  clean: boolean;
  changes: StatusEntry[];
  operation: GitOperation | null;
  state: RunState | null;
}

/** Looks without changing anything: git may not even refresh the index. */
export async function inspect(opts: RunLocation & CallOptions): Promise<RunInspection> {
  const { change, repo, ctx, paths } = await locateRun(opts);
  const branch = ralphBranch(change);
  const state = await readRunState(paths.state);
  const head = await headPosition(ctx);
  const changes = await statusEntries(ctx, { readOnly: true });
  const onRunBranch = head.kind !== 'detached' && head.name === branch;
  const checkpointSha = state?.checkpointSha ?? null;
  return {
    repo,
    paths,
    head,
    branch,
    branchSha: await branchSha(ctx, branch),
    onRunBranch,
    checkpointSha,
    atCheckpoint: head.kind === 'branch' && onRunBranch && head.sha === checkpointSha,
    clean: changes.length === 0,
    changes,
    operation: await operationInProgress(repo.gitDir),
    state,
  };
}
