import { existsSync } from 'node:fs';
import {
  engineContext,
  notInRepo,
  readRunState,
  removeRunWorktree,
  runPaths,
  type RunState,
} from '../../checkpoint/index.js';
import { locateRepo } from '../../git/repo.js';

interface At {
  cwd: string;
  change: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
}

/**
 * True when the recorded run of the change is a run in a worktree of its own: `finish` and
 * `--prune` then take the change's lock only, never the lock of the work tree they were typed
 * in (another run may be working there). False when nothing (readable) is recorded.
 */
export async function isHomeRun(at: At): Promise<boolean> {
  const repo = await locateRepo({ cwd: at.cwd, timeoutMs: at.timeoutMs, baseEnv: at.env });
  if (!repo) return false;
  const state = await readRunState(runPaths(repo.gitCommonDir, at.change).state).catch(() => null);
  return state?.home !== undefined && state.home !== null;
}

/**
 * `finish --prune` of a finished run in a worktree of its own: the worktree that is still there
 * (`--keep-worktree`, or git refused at the keep) goes with the refs and the run folder.
 * Returns the notice to show: removed, or why it stays (git refuses a worktree holding changes
 * that are in no commit, or a locked one: nothing is deleted then). Null when there was none.
 */
export async function pruneHomeWorktree(state: RunState, at: At): Promise<string | null> {
  const dir = state.worktree?.root;
  if (!state.home || !dir || !existsSync(dir)) return null;
  const engine = { timeoutMs: at.timeoutMs, baseEnv: at.env };
  const home = await locateRepo({ cwd: state.home.root, ...engine });
  if (!home) throw notInRepo(state.home.root);
  if (await removeRunWorktree(engineContext(home, engine), dir)) {
    return `removed the run's worktree ${dir}`;
  }
  return `the worktree ${dir} stays: git would not remove it (it holds changes that are in no commit, or it is locked: \`git worktree list\`); \`git worktree remove ${dir}\` once you have what you need from it`;
}
