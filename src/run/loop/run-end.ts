import { existsSync } from 'node:fs';
import type { Story } from '../../core/change.js';
import type { CompletionChoice, RunOutcome } from '../../core/events.js';
import { exhaustedMessage, exitCodeFor } from '../../core/loop.js';
import { withHomeLock } from '../home-lock.js';
import type { LoopContext, LoopDeps, LoopResult } from '../loop-types.js';

/** The story that used up its attempts, reported with its last failure. */
export function reportExhausted(deps: LoopDeps, storyId: string): void {
  const p = deps.run.progressOf(storyId);
  const reason = p.lastFailure ? `${p.lastFailure.kind}: ${p.lastFailure.reason}` : 'unknown';
  deps.emit({ type: 'story.exhausted', storyId, attempts: p.attempts, reason });
  deps.emit({
    type: 'error',
    message: exhaustedMessage(storyId, p.attempts, reason),
    fatal: false,
  });
}

/** Ends the loop: records the outcome, applies the completion choice and reports the run. */
export async function endRun(
  deps: LoopContext,
  outcome: RunOutcome,
  stories: readonly Story[],
  started: number,
): Promise<LoopResult> {
  const { run } = deps;
  await run.recordOutcome(outcome);
  await run.recordStoriesTotal(stories.length);
  const choice = await applyCompletionChoice(deps, outcome);
  // The run's time covers every invocation, as its cost covers every attempt.
  const durationMs = await run.recordElapsed(deps.clock.now() - started);
  const question = outcome === 'blocked' ? run.state.question : null;
  deps.emit({
    type: 'run.finished',
    outcome,
    choice,
    branch: run.branch,
    originalBranch: run.originalLabel,
    storiesCompleted: stories.filter((s) => s.done).length,
    storiesTotal: stories.length,
    // The ledger adds what agents reported; nothing reported (Codex, a command) is unknown.
    costUsd: run.state.costUsd > 0 ? run.state.costUsd : null,
    durationMs,
    ...(question ? { question: { storyId: question.storyId, text: question.text } } : {}),
    ...worktreeOf(run.state),
    ...(run.state.home ? { home: run.state.home.root } : {}),
  });
  const unanswered = choice === null && !ASKS_NO_CHOICE.has(outcome);
  return { outcome, choice, exitCode: exitCodeFor(unanswered ? 'stopped' : outcome) };
}

/** A run in a worktree of its own: where it is, and whether the completion removed it. */
function worktreeOf(state: LoopDeps['run']['state']): {
  worktree?: { root: string; removed: boolean };
} {
  const root = state.home ? state.worktree?.root : undefined;
  return root === undefined ? {} : { worktree: { root, removed: !existsSync(root) } };
}

/** Outcomes that park the run instead of asking the completion choice. */
const ASKS_NO_CHOICE: ReadonlySet<RunOutcome> = new Set(['error', 'blocked']);

/** Asks for the completion choice and applies it; null when none was made. */
async function applyCompletionChoice(
  deps: LoopDeps,
  outcome: RunOutcome,
): Promise<CompletionChoice | null> {
  const { run } = deps;
  if (ASKS_NO_CHOICE.has(outcome)) {
    // Retrying could not help (not logged in, agent CLI gone), or the agent asked a question
    // only a person can answer: the run stays recorded at its last checkpoint, so that after
    // fixing the cause (or with `resume --answer`) it carries on, or `finish` ends it.
    await run.release();
    return null;
  }
  deps.emit({ type: 'run.awaiting-choice', outcome, options: ['cleanup', 'keep'] });
  const choice = await deps.chooseCompletion(outcome);
  let notice: string | null = null;
  if (choice === 'cleanup') notice = await withHomeLock(run, () => run.cleanup({ outcome }));
  else if (choice === 'keep') notice = await run.keep({ outcome });
  // Nobody answered: the run stays at its last checkpoint for `ralphtool finish`.
  else await run.release();
  // Where the user's staged versions are saved when they could not be staged again.
  if (notice !== null) deps.emit({ type: 'error', message: notice, fatal: false });
  return choice;
}
