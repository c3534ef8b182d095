import { relative } from 'node:path';
import { UsageError } from '../../core/errors.js';
import { notInRepo, readRunState, runPaths, type RunState } from '../../checkpoint/index.js';
import { locateRepo } from '../../git/repo.js';
import { listChanges } from '../../openspec/changes.js';
import { findOpenSpecRoot } from '../../openspec/root.js';
import type { RunMode } from '../launch/launch.js';
import { collectRunStatuses } from '../status/status.js';

/** What `--all` takes, and what it leaves out with the reason (one line each). */
export interface ManySelection {
  changes: string[];
  leftOut: { change: string; why: string }[];
}

/**
 * `run --all`: every change with stories left and no unfinished recorded run (that one is
 * resumed, not started again). `resume --all`: every recorded run not finished and not running
 * now, in a worktree of its own or not (an ordinary run works in the user's own tree, beside
 * the worktree runs). Nothing is changed.
 */
export async function selectAll(
  cwd: string,
  mode: RunMode,
  timeoutMs: number,
  env: NodeJS.ProcessEnv,
  /** `resume --all` with runs a crashed command never started: none to resume is no error. */
  alsoStarting = false,
): Promise<ManySelection> {
  const specRoot = findOpenSpecRoot(cwd);
  const repo = await locateRepo({ cwd: specRoot, timeoutMs, baseEnv: env });
  if (!repo) throw notInRepo(specRoot);
  const selection: ManySelection = { changes: [], leftOut: [] };
  if (mode === 'resume') {
    const statuses = await collectRunStatuses(repo, relative(repo.root, specRoot), timeoutMs, env);
    for (const status of statuses) {
      if (status.state === 'interrupted') selection.changes.push(status.change);
      else if (status.state === 'running') {
        selection.leftOut.push({
          change: status.change,
          why: `running now (pid ${String(status.pid)})`,
        });
      } else if (status.state === 'unreadable') {
        selection.leftOut.push({ change: status.change, why: `unreadable: ${status.error ?? ''}` });
      }
    }
    if (selection.changes.length === 0 && !alsoStarting) {
      throw new UsageError(
        'resume --all: no run is left to resume (`ralphtool status` lists the recorded runs)',
      );
    }
    return selection;
  }
  for (const change of await listChanges(specRoot)) {
    const { done, total } = change.stories;
    let state: RunState | null;
    try {
      state = await readRunState(runPaths(repo.gitCommonDir, change.name).state);
    } catch (error) {
      const why = error instanceof Error ? error.message : String(error);
      selection.leftOut.push({ change: change.name, why: `its run state is unreadable: ${why}` });
      continue;
    }
    if (state !== null && state.status !== 'finished') {
      selection.leftOut.push({
        change: change.name,
        why: `has an unfinished run: \`ralphtool resume ${change.name}\` (or resume --all)`,
      });
    } else if (total === 0) selection.leftOut.push({ change: change.name, why: 'has no tasks' });
    else if (done === total) {
      selection.leftOut.push({ change: change.name, why: `all ${String(total)} stories done` });
    } else selection.changes.push(change.name);
  }
  if (selection.changes.length === 0) {
    throw new UsageError(
      'run --all: no change has stories left to run (`ralphtool list` shows them)',
    );
  }
  return selection;
}
