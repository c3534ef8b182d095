import { ralphBranch } from './paths.js';
import type { AttemptFailure, CompletionChoice, RunOutcome } from '../core/events.js';
import { mergeBlocks, type SandboxBlock } from '../core/sandbox-blocks.js';
import { newStoryProgress } from './state.js';
import type { AttemptFigures, OpenQuestion, RunState, StoryProgress } from './state.js';

/** Nothing spent: what an accept finished after a crash records when its step kept no figures. */
export const NO_FIGURES: AttemptFigures = { costUsd: 0, durationMs: 0 };

/** How a reverted attempt ended, which decides whether it counts against its story. */
export type AttemptEnding =
  | { ended: 'failed'; failure: AttemptFailure; figures: AttemptFigures }
  | { ended: 'stopped'; figures: AttemptFigures }
  | { ended: 'fatal'; figures: AttemptFigures }
  /** At a usage/rate limit or a transient API error: not counted, waited out. */
  | { ended: 'limited'; figures: AttemptFigures }
  /** The agent asked a question: not counted, the run parks until it is answered. */
  | { ended: 'blocked'; question: string; figures: AttemptFigures }
  /** The agent stopped at the budget it was given: not counted, the run ends (outcome `budget`). */
  | { ended: 'budget'; figures: AttemptFigures };

// What each step of the loop writes into the run state, defined once: the CheckpointRun
// writes these with its git results, and its crash replay writes the very same.

/** The story's recorded progress; a story not tried yet has none recorded. */
export function storyProgress(state: RunState, storyId: string): StoryProgress {
  return state.stories[storyId] ?? newStoryProgress();
}

/**
 * The attempt about to run is counted before the agent starts, so that a crash cannot hand
 * out free retries.
 */
export function recordAttemptStart(
  draft: RunState,
  storyId: string,
  attempt: number,
  /** The agent that runs it (and its model), when the loop says: kept per story and as the run's last. */
  agent?: { agent: string; model: string | null },
): void {
  draft.currentStory = storyId;
  draft.currentAttempt = attempt;
  const progress = { ...storyProgress(draft, storyId), attempts: attempt };
  if (agent !== undefined) {
    const agents = progress.agents ?? [];
    progress.agents = agents.includes(agent.agent) ? agents : [...agents, agent.agent];
    draft.attemptAgent = { ...agent };
  }
  draft.stories[storyId] = progress;
}

/**
 * What the test gate saw of an attempt (docs/contract.md, "Tests the agent may not weaken"):
 * the flaky verify runs are counted whatever becomes of the attempt; test changes let through
 * are kept only for an accepted attempt (a reverted one's are gone with it).
 */
export function recordTestGate(
  draft: RunState,
  storyId: string,
  seen: { flakes: number; testChanges: readonly string[] },
): void {
  const progress = { ...storyProgress(draft, storyId) };
  if (seen.flakes > 0) progress.flakes = (progress.flakes ?? 0) + seen.flakes;
  if (seen.testChanges.length > 0) {
    progress.testChanges = [...(progress.testChanges ?? []), ...seen.testChanges];
  }
  draft.stories[storyId] = progress;
}

/** What the sandbox refused an attempt's agent, added to its story's (whatever becomes of it). */
export function recordSandboxBlocks(
  draft: RunState,
  storyId: string,
  blocks: readonly SandboxBlock[],
): void {
  const progress = { ...storyProgress(draft, storyId) };
  progress.sandboxBlocks = mergeBlocks(progress.sandboxBlocks ?? [], blocks);
  draft.stories[storyId] = progress;
}

/** The agent's process group and its identity, so that a crashed ralphtool's agent can be stopped. */
export function recordAgent(draft: RunState, pgid: number, identity: string | null): void {
  draft.agentPgid = pgid;
  draft.agentIdentity = identity;
}

/** The story is done: its checkpoint is committed (the caller sets `checkpointSha`). */
export function recordAcceptance(draft: RunState, storyId: string, figures: AttemptFigures): void {
  const spent = withFigures(storyProgress(draft, storyId), figures);
  draft.stories[storyId] = { ...spent, completed: true, lastFailure: null };
  // The question of this story is settled with it; the answer goes no further.
  if (draft.question?.storyId === storyId) draft.question = null;
  endAttempt(draft, figures);
}

/**
 * A failed attempt counts against its story, and its failure is what the next prompt is told.
 * A stopped attempt, one that could not run (not logged in, agent CLI gone), one that met a
 * usage limit or asked a question does not count: a resume tries it afresh instead of finding
 * it exhausted, with the failure before it. What it spent counts all the same (the budget).
 */
export function recordRevertedAttempt(
  draft: RunState,
  storyId: string,
  attempt: number,
  ending: AttemptEnding,
): void {
  const spent = withFigures(storyProgress(draft, storyId), ending.figures);
  draft.stories[storyId] =
    ending.ended === 'failed'
      ? {
          ...spent,
          attempts: attempt,
          lastFailure: ending.failure,
          failures: [...(spent.failures ?? []), { attempt, ...ending.failure }],
        }
      : { ...spent, attempts: attempt - 1 };
  if (ending.ended === 'blocked') {
    // The run parks on this question until `resume --answer`; a new one replaces the old.
    draft.question = {
      storyId,
      attempt,
      text: ending.question,
      askedAt: new Date().toISOString(),
      answer: null,
    };
  }
  endAttempt(draft, ending.figures);
}

function withFigures(progress: StoryProgress, figures: AttemptFigures): StoryProgress {
  return {
    ...progress,
    costUsd: progress.costUsd + figures.costUsd,
    durationMs: progress.durationMs + figures.durationMs,
  };
}

/** No attempt runs any more: its cost joins the run's, and its agent is gone. */
function endAttempt(draft: RunState, figures: AttemptFigures): void {
  draft.costUsd += figures.costUsd;
  draft.agentPgid = null;
  draft.agentIdentity = null;
  draft.currentStory = null;
  draft.currentAttempt = null;
}

/**
 * The run ends with a completion choice. Cleanup, and keep of a complete run, end it for
 * good. Keep of a run whose stories are not all done (stopped, out of retries) only puts the
 * tree at the checkpoint: the run stays recorded (`status: active`, `choice: keep`, no pid) so
 * that `resume` carries on from there and `finish` can still clean up; `final` (what
 * `finish --keep` asks) ends it anyway.
 */
export function recordChoice(
  draft: RunState,
  choice: CompletionChoice,
  outcome: RunOutcome,
  final: boolean,
): void {
  const ends = choice === 'cleanup' || outcome === 'complete' || final;
  draft.status = ends ? 'finished' : 'active';
  draft.choice = choice;
  draft.outcome = outcome;
  draft.step = null;
  draft.pid = null;
}

/** `resume --answer`: the answer goes into the prompts of the question's story until it is accepted. */
export function recordAnswer(draft: RunState, answer: string): void {
  if (draft.question) draft.question = { ...draft.question, answer };
}

/** The question the run waits on: asked, and not answered yet. */
export function openQuestion(state: RunState): OpenQuestion | null {
  const question = state.question ?? null;
  return question !== null && question.answer === null ? question : null;
}

/** A kept run whose stories are not all done: `resume` or `finish` are its way on. */
export function isKeptIncomplete(state: RunState): boolean {
  return state.status === 'active' && state.choice === 'keep';
}

/**
 * What to do with a run that finished and was kept (docs/contract.md, "Keep"): its work is on
 * its branch, not yet where the user wants it. Every refusal that meets such a run says this,
 * never to delete the branch: `run`, `resume` and `finish` of the change.
 */
export function keptWorkAdvice(state: RunState): string | null {
  if (state.status !== 'finished' || state.choice !== 'keep') return null;
  const branch = ralphBranch(state.change);
  return `the run of ${state.change} finished and kept its work on ${branch}: bring it where you want it (\`git merge ${branch}\`), or run the change again: \`ralphtool run ${state.change} --force\` with your run options (the branch's tip is saved under refs/ralphtool/${state.change}/forced/ first)`;
}
