import { readRunState, runPaths, type RunState } from '../checkpoint/index.js';
import { locateRepo } from '../git/repo.js';

/** Where a run is looked for before it is opened. */
export interface RecordedWhere {
  specRoot: string;
  change: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
}

/**
 * The run's record as it stands, read before the run is opened (a resume's push remote and
 * intent): null when there is none, or when it cannot be read — the opening that follows
 * reports that, with its way out.
 */
export async function recordedState(where: RecordedWhere): Promise<RunState | null> {
  const repo = await locateRepo({
    cwd: where.specRoot,
    timeoutMs: where.timeoutMs,
    baseEnv: where.env,
  });
  if (repo === null) return null;
  return readRunState(runPaths(repo.gitCommonDir, where.change).state).catch(() => null);
}
