import { existsSync } from 'node:fs';
import type { Story } from '../../core/change.js';
import type { CompletionChoice, RunOutcome } from '../../core/events.js';
import { exhaustedMessage, exitCodeFor } from '../../core/loop.js';
import { withHomeLock } from '../home-lock.js';
import { HomeCollision } from '../../checkpoint/index.js';
import type { LoopContext, LoopDeps, LoopResult, LoopSetup } from '../loop-types.js';
import { droppedReason, mayResolve, startResolve } from './resolve.js';

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

/**
 * Ends the loop: records the outcome, applies the completion choice and reports the run. Null
 * when the loop goes on instead: `--resolve-conflicts` turned a colliding cleanup into one more
 * story (loop/resolve.ts).
 */
export async function endRun(
  setup: LoopSetup,
  deps: LoopContext,
  ended: RunOutcome,
  stories: readonly Story[],
  started: number,
): Promise<LoopResult | null> {
  const { run } = deps;
  // The resolve story not done: the work stays on the branch as it was, every story of it done.
  const resolving = run.state.resolve ?? null;
  const dropped = resolving !== null && ended !== 'complete' && !ASKS_NO_CHOICE.has(ended);
  const outcome: RunOutcome = dropped ? 'complete' : ended;
  await run.recordOutcome(outcome);
  await run.recordStoriesTotal(stories.length);
  const choice = dropped
    ? await dropResolve(deps, resolving.storyId, ended)
    : await applyCompletionChoice(setup, deps, outcome, stories);
  if (choice === 'resolving') return null;
  // Dropped, the story is gone with the checkpoint that had it.
  const finalStories = dropped ? stories.filter((s) => s.id !== resolving.storyId) : stories;
  // The run's time covers every invocation, as its cost covers every attempt.
  const durationMs = await run.recordElapsed(deps.clock.now() - started);
  const question = outcome === 'blocked' ? run.state.question : null;
  deps.emit({
    type: 'run.finished',
    outcome,
    choice,
    branch: run.branch,
    originalBranch: run.originalLabel,
    storiesCompleted: finalStories.filter((s) => s.done).length,
    storiesTotal: finalStories.length,
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

/** The resolve story not done: the branch back at the checkpoint before it, then kept. */
async function dropResolve(
  deps: LoopDeps,
  storyId: string,
  ended: RunOutcome,
): Promise<CompletionChoice> {
  const { run } = deps;
  const reason = droppedReason(deps, storyId, ended);
  await run.dropResolve();
  deps.emit({ type: 'resolve.dropped', storyId, reason });
  const notice = await run.keep({ outcome: 'complete' });
  if (notice !== null) deps.emit({ type: 'error', message: notice, fatal: false });
  return 'keep';
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

/**
 * Asks for the completion choice and applies it; null when none was made; `resolving` when the
 * cleanup collided and the agent gets one more story. After that story the cleanup is not asked
 * again: it was chosen.
 */
async function applyCompletionChoice(
  setup: LoopSetup,
  deps: LoopDeps,
  outcome: RunOutcome,
  stories: readonly Story[],
): Promise<CompletionChoice | 'resolving' | null> {
  const { run } = deps;
  if (ASKS_NO_CHOICE.has(outcome)) {
    // Retrying could not help (not logged in, agent CLI gone), or the agent asked a question
    // only a person can answer: the run stays recorded at its last checkpoint, so that after
    // fixing the cause (or with `resume --answer`) it carries on, or `finish` ends it.
    await run.release();
    return null;
  }
  const resolved = (run.state.resolve ?? null) !== null;
  let choice: CompletionChoice | null = 'cleanup';
  if (!resolved) {
    deps.emit({ type: 'run.awaiting-choice', outcome, options: ['cleanup', 'keep'] });
    choice = await deps.chooseCompletion(outcome, {
      resolveConflicts: setup.options.resolveConflicts,
    });
  }
  let notice: string | null = null;
  if (choice === 'cleanup') {
    const cleanup = (): Promise<string | null> => withHomeLock(run, () => run.cleanup({ outcome }));
    try {
      notice = await cleanup();
    } catch (error) {
      if (!(error instanceof HomeCollision) || resolved || !mayResolve(setup, deps, outcome)) {
        throw error;
      }
      if (await withHomeLock(run, () => startResolve(setup, deps, stories))) return 'resolving';
      notice = await cleanup();
    }
  } else if (choice === 'keep') notice = await run.keep({ outcome });
  // Nobody answered: the run stays at its last checkpoint for `ralphtool finish`.
  else await run.release();
  // Where the user's staged versions are saved when they could not be staged again.
  if (notice !== null) deps.emit({ type: 'error', message: notice, fatal: false });
  return choice;
}
