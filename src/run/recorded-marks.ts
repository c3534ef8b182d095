import { readdir } from 'node:fs/promises';
import { runPaths, runsRoot } from '../checkpoint/where.js';
import { isValidChangeName } from '../core/change-name.js';
import { runMark, type RunMark } from '../core/run-mark.js';
import { locateRepo } from '../git/repo.js';
import { readLock } from './lock.js';

/**
 * Changes whose run is recorded and waits for the user (finished and kept too), with their mark;
 * unreadable ones are left out. `list` calls it on every start: it loads the run state's reader
 * (and its schemas) only when there is a recorded run to read.
 */
export async function recordedRunMarks(
  cwd: string,
  timeoutMs: number,
  env: NodeJS.ProcessEnv,
): Promise<Record<string, RunMark>> {
  const repo = await locateRepo({ cwd, timeoutMs, baseEnv: env });
  if (!repo) return {};
  const names = (await readdir(runsRoot(repo.gitCommonDir)).catch(() => [] as string[])).filter(
    isValidChangeName,
  );
  if (names.length === 0) return {};
  const { readRunState } = await import('../checkpoint/index.js');
  const marks: Record<string, RunMark> = {};
  for (const change of names) {
    const paths = runPaths(repo.gitCommonDir, change);
    // A run another ralphtool is working on now is not waiting for anyone.
    if ((await readLock(paths.lock).catch(() => null))?.kind === 'held') continue;
    const state = await readRunState(paths.state).catch(() => null);
    const mark = state === null ? null : runMark(state);
    if (mark !== null) marks[change] = mark;
  }
  return marks;
}
