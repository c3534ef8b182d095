import type { Story } from '../../core/change.js';
import { nextStep, type LoopPosition, type ParkedOutcome } from '../../core/loop.js';
import type { LoopContext, LoopDeps, LoopResult, LoopSetup } from '../loop-types.js';
import { systemClock } from './system-clock.js';
import { LimitWaiter } from '../unattended/limit-wait.js';
import { AgentRoster, type AllLimited } from '../unattended/agent-roster.js';
import { endRun, reportExhausted } from './run-end.js';
import { prepareRunLimits } from '../unattended/run-limits.js';
import { attemptStory } from './story-attempt.js';
import { reviewChange } from './review.js';
import { runVerifyBaseline } from './verify-baseline.js';
import { unrecognisedOnce } from './unrecognised-once.js';

export type { ChooseCompletion, LoopDeps, LoopResult, LoopSetup } from '../loop-types.js';

/**
 * The loop: asks core what to do next, does it with the agent and the checkpoint
 * engine, and reports every step as an event. Ends with the completion choice.
 */
export async function runLoop(setup: LoopSetup, given: LoopDeps): Promise<LoopResult> {
  const deps: LoopContext = {
    ...given,
    emit: unrecognisedOnce(given.emit),
    clock: given.clock ?? systemClock,
  };
  const started = deps.clock.now();
  let stories = setup.change.stories;
  let fatalError: string | null = null;
  const budget = await prepareRunLimits(setup, deps, started);
  // The primary and its fallback agents (`--fallback-agent`), with the limits recorded.
  const roster = await AgentRoster.prepare(setup, deps);
  await deps.run.recordStoriesTotal(stories.length);
  announceStart(setup, deps, stories, roster);
  budget.announce([setup.options.agent, ...roster.fallbacks.map((slot) => slot.agent)]);
  const reportDirtySubmodules = submoduleReporter(deps);
  await reportDirtySubmodules();
  await runVerifyBaseline(setup, deps);
  // Usage limits are waited out (a wait a crashed invocation recorded first), not failed.
  const limits = new LimitWaiter(setup, deps, started);
  let ending: ParkedOutcome | null = await limits.resumeRecorded();

  for (;;) {
    const step = nextStep({ ...positionOf(setup, deps, stories, fatalError), ending });
    if (step.kind === 'finish') {
      if (step.outcome === 'max-retries' && step.exhaustedStoryId !== null) {
        reportExhausted(deps, step.exhaustedStoryId);
      }
      // Every story accepted: with a review, "done" is the reviewer's approval.
      if (step.outcome === 'complete' && deps.reviewer) {
        const reviewed = await reviewChange(setup, deps, stories, deps.reviewer);
        if (reviewed.fatal !== null)
          deps.emit({ type: 'error', message: reviewed.fatal, fatal: true });
        const ended = await endRun(setup, deps, reviewed.outcome, stories, started);
        if (ended !== null) return ended;
      } else {
        const ended = await endRun(setup, deps, step.outcome, stories, started);
        if (ended !== null) return ended;
      }
      // --resolve-conflicts: one more story, the branch onto the user's work tree (loop/resolve.ts).
      stories = (await setup.rereadStories()) ?? stories;
      continue;
    }
    // Another run on the same account waits out a limit, or the window is past --pause-at: no
    // new attempt until it is over (docs/contract.md, "One account, many runs").
    const gate = await limits.beforeAttempt(step.storyId, step.attempt, !roster.gatesAccounts);
    if (gate === 'waited') continue;
    if (gate !== null) {
      ending = gate;
      continue;
    }
    // Budgets and --max-duration are checked at each attempt boundary, never mid-attempt.
    const limitReached = budget.beforeAttempt(step.storyId);
    if (limitReached !== null) {
      ending = limitReached;
      continue;
    }
    const story = stories.find((s) => s.id === step.storyId);
    if (!story) throw new Error(`story ${step.storyId} vanished between decisions`);
    const agent = await roster.pick(step.storyId, step.attempt);
    if (agent === null) {
      // Every agent is limited (a resume after a crash, the records say until when): wait.
      ending = await waitForAgents(roster, limits, deps, step);
      continue;
    }
    const settled = await attemptStory(
      setup,
      deps,
      stories,
      story,
      step.attempt,
      (limit) => limits.counts(limit),
      agent,
    );
    if (settled.accepted || settled.limit === null) {
      limits.settled();
      roster.settled(agent.agent);
    }
    if (!settled.accepted) {
      await reportDirtySubmodules();
      if (settled.fatal !== null) {
        fatalError = settled.fatal;
        deps.emit({ type: 'error', message: settled.fatal, fatal: true });
      }
      if (settled.question !== null) ending = 'blocked';
      if (settled.budget) ending = budget.spentBy(story.id);
      if (settled.limit !== null && fatalError === null && roster.switches(settled.limit)) {
        // A usage or rate limit: the next agent goes on at once; all limited, the first to reset.
        const all = await roster.limitedBy(agent.agent, settled.limit);
        if (all !== null) ending = await waitForAgents(roster, limits, deps, step, all);
      } else if (settled.limit !== null && fatalError === null) {
        ending = await limits.handle(story.id, step.attempt, settled.limit);
      }
    }
    stories = (await setup.rereadStories()) ?? stories;
  }
}

/**
 * Every agent is limited: the wait for the first to reset. A stop during it forgets the agents'
 * limits as a stopped wait is forgotten (a resume tries at once).
 */
async function waitForAgents(
  roster: AgentRoster,
  limits: LimitWaiter,
  deps: LoopDeps,
  step: { storyId: string; attempt: number },
  known?: AllLimited,
): Promise<ParkedOutcome | null> {
  const all = known ?? roster.allLimited();
  if (all === null) return null;
  const ending = await limits.waitForAgents(step.storyId, step.attempt, all);
  if (ending === null && deps.stop.aborted) await roster.forgetLimits();
  return ending;
}

function announceStart(
  setup: LoopSetup,
  deps: LoopDeps,
  stories: readonly Story[],
  roster: AgentRoster,
): void {
  const { run } = deps;
  const fallbacks = roster.fallbacks;
  deps.emit({
    type: 'run.started',
    change: setup.change.name,
    branch: run.branch,
    originalBranch: run.originalLabel,
    baseSha: run.baseSha,
    agent: setup.options.agent,
    ...(fallbacks.length > 0 ? { fallbacks } : {}),
    maxRetries: setup.options.maxRetries,
    ...(run.state.home ? { worktree: run.repo.root } : {}),
    ...(deps.sandbox ? { sandbox: deps.sandbox } : {}),
    // A resumed run's earlier invocations count in its figures (the run state keeps them).
    stories: stories.map((s) => {
      const { attempts, costUsd, durationMs, agents, flakes } = deps.run.progressOf(s.id);
      const ran = agents !== undefined && agents.length > 0 ? { agents } : {};
      const flaky = flakes !== undefined && flakes > 0 ? { flakes } : {};
      const figures = { attempts, costUsd, durationMs, ...ran, ...flaky };
      return { id: s.id, title: s.title, done: s.done, ...figures };
    }),
  });
}

/** What the next decision needs: the stories as last read and the attempts recorded. */
function positionOf(
  setup: LoopSetup,
  deps: LoopDeps,
  stories: readonly Story[],
  fatalError: string | null,
): LoopPosition {
  return {
    stories,
    attempts: Object.fromEntries(
      Object.entries(deps.run.state.stories).map(([id, p]) => [id, p.attempts]),
    ),
    maxRetries: setup.options.maxRetries,
    stopRequested: deps.stop.aborted,
    fatalError,
  };
}

/**
 * Submodules are other repositories: never reverted, so their changes are reported, once
 * for each new set of them.
 */
function submoduleReporter(deps: LoopDeps): () => Promise<void> {
  let reported = '';
  return async () => {
    const dirty = await deps.run.dirtySubmodules();
    const key = dirty.join('\0');
    if (dirty.length > 0 && key !== reported) {
      deps.emit({
        type: 'error',
        message: `submodule(s) with changes of their own: ${dirty.join(', ')}; ralphtool never reverts inside submodules, so these stay as they are`,
        fatal: false,
      });
    }
    reported = key;
  };
}
