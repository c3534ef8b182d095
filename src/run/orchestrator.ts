import type { AgentBackend } from '../agents/types.js';
import type { Change, Story } from '../core/change.js';
import { RalphError } from '../core/errors.js';
import type { CompletionChoice, FailureKind, RunEvent, RunOutcome } from '../core/events.js';
import { exhaustedMessage, exitCodeFor, nextStep } from '../core/loop.js';
import type { PromptChangePaths } from '../core/prompt.js';
import type { CheckpointRun } from '../checkpoint/index.js';
import { processIdentity } from './lock.js';
import { promptFile, transcriptFile } from '../checkpoint/paths.js';
import { newStoryProgress, type StoryProgress } from '../checkpoint/state.js';
import { runAttempt, type AttemptResult } from './attempt.js';
import type { RunOptions } from './options.js';

export interface LoopSetup {
  repoRoot: string;
  change: Change;
  paths: PromptChangePaths;
  options: RunOptions;
  verify: { commands: readonly string[]; inferred: boolean };
  /** Re-reads the change's stories from tasks.md; null when it cannot be read. */
  rereadStories: () => Promise<Story[] | null>;
}

/** How the loop learns the user's completion choice (flag, prompt or UI). */
/** Resolves to null when no choice can be made (the question went unanswered). */
export type ChooseCompletion = (outcome: RunOutcome) => Promise<CompletionChoice | null>;

export interface LoopDeps {
  run: CheckpointRun;
  backend: AgentBackend;
  emit: (event: RunEvent) => void;
  chooseCompletion: ChooseCompletion;
  /** Aborted when the user asks to stop (Ctrl-C, SIGTERM, `q`). */
  stop: AbortSignal;
}

export interface LoopResult {
  outcome: RunOutcome;
  /** Null when the run ended in an error and stays recorded for resume/finish. */
  choice: CompletionChoice | null;
  exitCode: number;
}

/**
 * The loop: asks core what to do next, does it with the agent and the checkpoint
 * engine, and reports every step as an event. Ends with the completion choice.
 */
export async function runLoop(setup: LoopSetup, deps: LoopDeps): Promise<LoopResult> {
  const started = Date.now();
  const { run, emit } = deps;
  let stories = setup.change.stories;
  let fatalError: string | null = null;

  emit({
    type: 'run.started',
    change: setup.change.name,
    branch: run.branch,
    originalBranch: run.originalLabel,
    baseSha: run.baseSha,
    agent: setup.options.agent,
    maxRetries: setup.options.maxRetries,
    stories: stories.map((s) => ({ id: s.id, title: s.title, done: s.done })),
  });

  // Submodules are other repositories: never reverted, so their changes are reported once.
  let reportedSubmodules = '';
  const reportDirtySubmodules = async (): Promise<void> => {
    const dirty = await run.dirtySubmodules();
    const key = dirty.join('\0');
    if (dirty.length > 0 && key !== reportedSubmodules) {
      emit({
        type: 'error',
        message: `submodule(s) with changes of their own: ${dirty.join(', ')}; ralphtool never reverts inside submodules, so these stay as they are`,
        fatal: false,
      });
    }
    reportedSubmodules = key;
  };
  await reportDirtySubmodules();

  const progressOf = (id: string): StoryProgress => run.state.stories[id] ?? newStoryProgress();

  for (;;) {
    const step = nextStep({
      stories,
      attempts: Object.fromEntries(
        Object.entries(run.state.stories).map(([id, p]) => [id, p.attempts]),
      ),
      maxRetries: setup.options.maxRetries,
      stopRequested: deps.stop.aborted,
      fatalError,
    });
    if (step.kind === 'finish') {
      if (step.outcome === 'max-retries' && step.exhaustedStoryId !== null) {
        reportExhausted(step.exhaustedStoryId);
      }
      return complete(step.outcome);
    }

    const story = stories.find((s) => s.id === step.storyId);
    if (!story) throw new Error(`story ${step.storyId} vanished between decisions`);
    await run.ensureAtCheckpoint();
    const before = progressOf(story.id);
    // The attempt is counted before the agent starts, so a crash cannot hand out free retries.
    await run.update((draft) => {
      draft.currentStory = story.id;
      draft.currentAttempt = step.attempt;
      draft.stories[story.id] = { ...before, attempts: step.attempt };
    });
    emit({
      type: 'story.started',
      storyId: story.id,
      title: story.title,
      index: stories.indexOf(story) + 1,
      total: stories.length,
      completed: stories.filter((s) => s.done).length,
      attempt: step.attempt,
    });

    const result = await attemptOrFatal(story, step.attempt, before);
    const spent: StoryProgress = {
      ...before,
      attempts: step.attempt,
      costUsd: before.costUsd + result.costUsd,
      durationMs: before.durationMs + result.durationMs,
    };

    if (result.verdict.accepted) {
      const sha = await run.accept(story.id, {
        record: (draft) => {
          draft.costUsd += result.costUsd;
          draft.agentPgid = null;
          draft.currentStory = null;
          draft.currentAttempt = null;
          draft.stories[story.id] = { ...spent, completed: true, lastFailure: null };
        },
      });
      emit({ type: 'checkpoint.created', storyId: story.id, sha });
      emit({
        type: 'story.completed',
        storyId: story.id,
        attempts: step.attempt,
        costUsd: spent.costUsd,
        durationMs: spent.durationMs,
      });
      stories = (await setup.rereadStories()) ?? stories;
      continue;
    }

    const failure = { kind: result.verdict.kind, reason: result.verdict.reason };
    if (!result.stopped) {
      emit({ type: 'attempt.failed', storyId: story.id, attempt: step.attempt, ...failure });
    }
    const reverted = await run.revert(story.id, step.attempt, {
      record: (draft) => {
        draft.costUsd += result.costUsd;
        draft.agentPgid = null;
        draft.currentStory = null;
        draft.currentAttempt = null;
        // A stopped attempt, or one that could not run (not logged in, agent CLI gone), does not
        // count against the story: a resume tries it afresh instead of finding it exhausted.
        draft.stories[story.id] =
          result.stopped || result.fatal !== null
            ? { ...spent, attempts: step.attempt - 1 }
            : { ...spent, lastFailure: failure };
      },
    });
    emit({ type: 'checkpoint.reverted', storyId: story.id, attempt: step.attempt, ...reverted });
    await reportDirtySubmodules();
    if (result.fatal !== null) {
      fatalError = result.fatal;
      emit({ type: 'error', message: result.fatal, fatal: true });
    }
    stories = (await setup.rereadStories()) ?? stories;
  }

  /** Runs one attempt; a ralphtool error inside it (agent CLI gone, …) ends the run cleanly. */
  async function attemptOrFatal(
    story: Story,
    attempt: number,
    before: StoryProgress,
  ): Promise<AttemptResult> {
    let pgidWrite: Promise<unknown> = Promise.resolve();
    try {
      return await runAttempt(
        {
          repoRoot: setup.repoRoot,
          change: setup.change,
          paths: setup.paths,
          story,
          attempt,
          previousFailure: before.lastFailure as { kind: FailureKind; reason: string } | null,
          verify: setup.verify,
          learningsPath: run.paths.learnings,
          promptPath: promptFile(run.paths, story.id, attempt),
          transcriptPath: transcriptFile(run.paths, story.id, attempt),
          onAgentSpawn: (pgid) => {
            pgidWrite = run.update((draft) => {
              draft.agentPgid = pgid;
              draft.agentIdentity = processIdentity(pgid);
            });
          },
        },
        deps.backend,
        setup.options,
        deps.stop,
        emit,
        setup.rereadStories,
        setup.change.requirements,
      );
    } catch (error) {
      if (!(error instanceof RalphError)) throw error;
      return {
        verdict: { accepted: false, kind: 'agent-error', reason: error.message },
        stopped: false,
        fatal: error.message,
        costUsd: 0,
        durationMs: 0,
      };
    } finally {
      await pgidWrite;
    }
  }

  function reportExhausted(storyId: string): void {
    const p = progressOf(storyId);
    const reason = p.lastFailure ? `${p.lastFailure.kind}: ${p.lastFailure.reason}` : 'unknown';
    emit({ type: 'story.exhausted', storyId, attempts: p.attempts, reason });
    emit({
      type: 'error',
      message: exhaustedMessage(storyId, p.attempts, reason),
      fatal: false,
    });
  }

  async function complete(outcome: RunOutcome): Promise<LoopResult> {
    await run.update((draft) => {
      draft.outcome = outcome;
    });
    let choice: CompletionChoice | null = null;
    if (outcome === 'error') {
      // Retrying could not help (not logged in, agent CLI gone): the run stays recorded at its
      // last checkpoint, so that after fixing the cause `resume` carries on (or `finish` ends it).
      await run.update((draft) => {
        draft.pid = null;
      });
    } else {
      emit({ type: 'run.awaiting-choice', outcome, options: ['cleanup', 'keep'] });
      choice = await deps.chooseCompletion(outcome);
      if (choice === 'cleanup') await run.cleanup({ outcome });
      else if (choice === 'keep') await run.keep({ outcome });
      else {
        // Nobody answered: the run stays at its last checkpoint for `ralphtool finish`.
        await run.update((draft) => {
          draft.pid = null;
        });
      }
    }
    emit({
      type: 'run.finished',
      outcome,
      choice,
      branch: run.branch,
      originalBranch: run.originalLabel,
      storiesCompleted: stories.filter((s) => s.done).length,
      storiesTotal: stories.length,
      costUsd: run.state.costUsd,
      durationMs: Date.now() - started,
    });
    const unanswered = choice === null && outcome !== 'error';
    return { outcome, choice, exitCode: exitCodeFor(unanswered ? 'stopped' : outcome) };
  }
}
