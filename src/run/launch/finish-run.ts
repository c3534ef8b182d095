import type { CompletionChoice } from '../../core/events.js';
import { openRun } from '../../checkpoint/index.js';
import { existsSync } from 'node:fs';
import { openWorktreePlace, recordedHome, type WorktreePlace } from './launch-worktree.js';
import { withHomeLock } from '../home-lock.js';
import { repairNotice, userTasksNotice } from '../repair-notice.js';
import { assertResumable, killOrphanedAgent, lockSession } from '../session.js';

export interface FinishRequest {
  cwd: string;
  change: string;
  choice: CompletionChoice;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  /** One-line notes on the way (a lock taken over, an agent stopped, an attempt saved). */
  notice: (message: string) => void;
  /** The command to name when the run belongs to another work tree (default `resume <change>`). */
  retry?: string;
}

export interface FinishDone {
  /** What was done, as one line. */
  message: string;
  /** Attempt refs this finish wrote or moved (what it found in the work tree): never pruned. */
  written: string[];
}

/**
 * `finish --cleanup|--keep` without `--prune`, for the command and the UI alike: ends a
 * recorded run that is not active exactly as the completion choice would, after stopping a
 * crashed run's agent and saving and reverting a half-done attempt. `keep` ends it for good,
 * stories left or not.
 */
export async function finishRecordedRun(req: FinishRequest): Promise<FinishDone> {
  const { change, timeoutMs, env } = req;
  // A run in a worktree of its own is finished there, from whichever work tree (as resume).
  const where = { specRoot: req.cwd, change, timeoutMs, env };
  const found = await recordedHome(where);
  // A cleanup under way whose worktree is already removed goes on from the user's work tree:
  // there is no worktree to make again (its branch may be deleted too).
  const recorded =
    found?.state.step?.op === 'cleanup' && !existsSync(found.worktreeRoot) ? null : found;
  const locks = await lockSession(req.cwd, change, timeoutMs, env, { workTree: recorded === null });
  let place: WorktreePlace | null = null;
  try {
    for (const warning of locks.warnings) req.notice(`warning: ${warning}`);
    if (recorded !== null) place = await openWorktreePlace(recorded, where, req.notice);
    const run = await openRun({
      cwd: recorded?.worktreeRoot ?? req.cwd,
      change,
      timeoutMs,
      baseEnv: env,
      ...(req.retry === undefined ? {} : { retry: req.retry }),
    });
    assertResumable(run.state, 'finish');
    // Refs this finish writes hold what it found in the work tree (the user's edits too):
    // a --prune right after must not delete them.
    const tipsBefore = await run.attemptRefTips();
    if (killOrphanedAgent(run.state))
      req.notice('stopped the agent the interrupted run left running');
    // A start that stopped before its first commit is undone by the cleanup, not completed.
    const undoingStart = req.choice === 'cleanup' && run.state.step?.op === 'start';
    if (run.state.step?.op !== 'cleanup' && !undoingStart) {
      const tasksEdits = userTasksNotice(await run.takeUserTasksEdits(), run.branch);
      if (tasksEdits !== null) req.notice(tasksEdits);
      // Put back first (cleanup and keep would do it silently), to say what was found.
      const repaired = repairNotice(await run.ensureAtCheckpoint(), run.branch);
      if (repaired !== null) req.notice(repaired);
    }
    // The refs as the repair left them: a keep or cleanup that gives a run's own worktree back
    // leaves no work tree to ask git in afterwards (and writes no ref after the repair).
    const repairedTips = await run.attemptRefTips();
    const outcome = run.state.outcome ?? 'stopped';
    const notice =
      req.choice === 'cleanup'
        ? await withHomeLock(run, () => run.cleanup({ outcome }))
        : await run.keep({ outcome, final: true });
    if (notice !== null) req.notice(notice);
    const after = existsSync(run.repo.root) ? await run.attemptRefTips() : repairedTips;
    const written = [...after].filter(([ref, sha]) => tipsBefore.get(ref) !== sha).map(([r]) => r);
    const message =
      req.choice === 'cleanup'
        ? run.state.home
          ? `cleanup done: the work is in ${run.state.home.root} as uncommitted changes (on ${run.originalLabel})`
          : `cleanup done: back on ${run.originalLabel}, the work is left as uncommitted changes`
        : `kept: ${run.branch} has one commit per story (original branch: ${run.originalLabel})${keptWorktree(recorded?.worktreeRoot)}`;
    return { message, written };
  } finally {
    await place?.lock.release();
    await locks.release();
    await locks.forgetIfUnused();
  }
}

/** What became of a kept run's own worktree: removed, or still there (--keep-worktree, git refused). */
function keptWorktree(root: string | undefined): string {
  if (root === undefined) return '';
  return existsSync(root) ? `; its worktree stays at ${root}` : `; its worktree ${root} is removed`;
}
