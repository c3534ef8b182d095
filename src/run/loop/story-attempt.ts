import { findWrittenSecret } from '../secrets.js';
import type { Story } from '../../core/change.js';
import { attemptAllowance, NO_BUDGET } from '../../core/budget.js';
import { RalphError } from '../../core/errors.js';
import type { AttemptFailure, VerifyResult } from '../../core/events.js';
import { afterAccepted } from '../../core/verify-ratchet.js';
import type { AgentLimit } from '../../agents/types.js';
import {
  attemptName,
  type AttemptEnding,
  type AttemptFigures,
  engineContext,
  type OpenQuestion,
  promptFile,
  transcriptFile,
} from '../../checkpoint/index.js';
import { runAttempt, type AttemptPlan, type AttemptResult } from './attempt.js';
import { readTasksText, restoreOtherStories } from './tasks-restore.js';
import { testGateOf, testGateSeen } from './test-gate.js';
import { markersGateOf } from './resolve.js';
import { checkpointBodyOf } from './checkpoint-body.js';
import { processIdentity } from '../lock.js';
import type { LoopDeps, LoopSetup } from '../loop-types.js';
import type { AttemptAgent } from '../unattended/agent-roster.js';

/**
 * How an attempt was settled: accepted, or reverted (with the error that ends the run, if any,
 * the limit that must be waited out, or the question that parks the run).
 */
export type SettledAttempt =
  | { accepted: true }
  | {
      accepted: false;
      fatal: string | null;
      limit: AgentLimit | null;
      question: string | null;
      /** The agent stopped at the budget it was given: the run ends with outcome `budget`. */
      budget: boolean;
    };

/**
 * One attempt at `story` from the checkpoint: counted, run, then accepted as the story's
 * checkpoint or reverted, each reported as events.
 */
export async function attemptStory(
  setup: LoopSetup,
  deps: LoopDeps,
  stories: readonly Story[],
  story: Story,
  attempt: number,
  /** Whether a limit the attempt meets counts as a failure after all (transient, too often). */
  limitCounts: (limit: AgentLimit) => boolean = () => false,
  /** The agent that runs it (a fallback agent, docs/contract.md "Fallback agents"); default the run's. */
  agent: AttemptAgent = {
    agent: setup.options.agent,
    model: setup.options.model,
    backend: deps.backend,
  },
): Promise<SettledAttempt> {
  const { run, emit } = deps;
  await run.ensureAtCheckpoint();
  // tasks.md as the checkpoint has it: what the attempt may change only in its own story.
  const tasksBefore = await readTasksText(setup);
  const previousFailure = run.progressOf(story.id).lastFailure;
  await run.startAttempt(story.id, attempt, { agent: agent.agent, model: agent.model });
  emit({
    type: 'story.started',
    storyId: story.id,
    title: story.title,
    index: stories.indexOf(story) + 1,
    total: stories.length,
    completed: stories.filter((s) => s.done).length,
    attempt,
    agent: agent.agent,
    model: agent.model,
  });

  const result = await runAgentAttempt(
    setup,
    deps,
    story,
    { attempt, agent },
    previousFailure,
    tasksBefore,
  );
  const figures: AttemptFigures = { costUsd: result.costUsd, durationMs: result.durationMs };
  await run.recordTestGate(story.id, testGateSeen(result));
  await run.recordSandboxBlocks(story.id, result.sandboxBlocks ?? []);
  const outside = result.tasksAfter?.outside ?? [];
  if (result.verdict.accepted) {
    // The agent's whole edit is saved first; the checkpoint then gets the other stories back.
    const savedRef =
      outside.length > 0 && result.tasksAfter
        ? await restoreOtherStories(setup, deps, story.id, attempt, result.tasksAfter)
        : null;
    if (savedRef !== null) {
      emit({ type: 'tasks.out-of-scope', storyId: story.id, attempt, edits: outside, savedRef });
    }
    const body = await checkpointBodyOf(setup, deps, story, attempt, result);
    await acceptAttempt(deps, story.id, attempt, figures, result.verify, body);
    return { accepted: true };
  }
  if (outside.length > 0) {
    emit({
      type: 'tasks.out-of-scope',
      storyId: story.id,
      attempt,
      edits: outside,
      savedRef: null,
    });
  }

  const failure = failureOf(result.verdict, result.limit ?? null, limitCounts);
  // A stop by the user, a limit or a question is no failure of the attempt: it is only reverted.
  if (!UNCOUNTED.has(failure.kind)) {
    emit({ type: 'attempt.failed', storyId: story.id, attempt, ...failure, ...verifyOf(result) });
  }
  if (failure.kind === 'blocked') {
    emit({ type: 'story.blocked', storyId: story.id, attempt, question: failure.reason });
  }
  const reverted = await run.revertAttempt(story.id, attempt, ending(result, failure, figures));
  emit({ type: 'checkpoint.reverted', storyId: story.id, attempt, ...reverted });
  reportNotices(deps);
  return {
    accepted: false,
    fatal: result.fatal,
    limit: failure.kind === 'limited' ? (result.limit ?? null) : null,
    question: failure.kind === 'blocked' ? failure.reason : null,
    budget: failure.kind === 'budget',
  };
}

/**
 * The attempt's failure as judged; a limit that is one transient API error too many in a row is
 * an ordinary agent error (counted), so that an API that stays broken cannot retry for ever.
 */
function failureOf(
  { kind, reason }: AttemptFailure,
  limit: AgentLimit | null,
  limitCounts: (limit: AgentLimit) => boolean,
): AttemptFailure {
  if (kind === 'limited' && limit !== null && limitCounts(limit)) {
    return { kind: 'agent-error', reason: `${reason} (too many transient API errors in a row)` };
  }
  return { kind, reason };
}

/** Endings that are reverted but not judged as the attempt's failure. */
const UNCOUNTED: ReadonlySet<string> = new Set(['stopped', 'limited', 'blocked', 'budget']);

async function acceptAttempt(
  deps: LoopDeps,
  storyId: string,
  attempt: number,
  figures: AttemptFigures,
  verify: VerifyResult[] | undefined,
  body: string,
): Promise<void> {
  const sha = await deps.run.acceptStory(storyId, figures, { body });
  await deps.run.recordAcceptedVerify(storyId, verify ?? []);
  deps.emit({ type: 'checkpoint.created', storyId, sha });
  reportNotices(deps);
  // The new checkpoint passes what passed on it: from now on those commands block (the ratchet).
  // A crash before this write loses nothing: the next baseline runs them on this checkpoint.
  const ratchet = afterAccepted(deps.run.state.verify ?? null, verify ?? []);
  if (ratchet !== null) await deps.run.recordVerify(ratchet);
  const progress = deps.run.progressOf(storyId);
  deps.emit({
    type: 'story.completed',
    storyId,
    attempts: attempt,
    // The ledger adds what agents reported; nothing reported (Codex, a command) is unknown.
    costUsd: progress.costUsd > 0 ? progress.costUsd : null,
    durationMs: progress.durationMs,
    ...(verify ? { verify } : {}),
  });
}

/** The verify results for an event, when any command ran. */
function verifyOf(result: AttemptResult): { verify?: VerifyResult[] } {
  return result.verify ? { verify: result.verify } : {};
}

/** What the checkpoint engine did on its own (config put back, secrets left out): warnings. */
function reportNotices(deps: LoopDeps): void {
  for (const message of deps.run.takeNotices()) deps.emit({ type: 'error', message, fatal: false });
}

function ending(
  result: AttemptResult,
  failure: AttemptFailure,
  figures: AttemptFigures,
): AttemptEnding {
  if (failure.kind === 'stopped') return { ended: 'stopped', figures };
  if (result.fatal !== null) return { ended: 'fatal', figures };
  if (failure.kind === 'limited') return { ended: 'limited', figures };
  if (failure.kind === 'blocked') return { ended: 'blocked', question: failure.reason, figures };
  if (failure.kind === 'budget') return { ended: 'budget', figures };
  return { ended: 'failed', failure, figures };
}

/** What the attempt may spend of the budget left (none without a budget). */
/** A run that pushes: the check of the attempt's files for a secret's value, at its checkpoint. */
function secretCheckOf(deps: LoopDeps, setup: LoopSetup): Pick<AttemptPlan, 'secretWritten'> {
  const secrets = deps.pushedSecrets;
  const checkpoint = deps.run.state.checkpointSha;
  if (secrets === undefined || checkpoint === null) return {};
  const ctx = engineContext(deps.run.repo, {
    timeoutMs: setup.options.commandTimeoutMs,
    baseEnv: setup.env,
  });
  return { secretWritten: async () => findWrittenSecret(ctx, checkpoint, await secrets()) };
}

function allowanceOf(deps: LoopDeps, storyId: string): { maxBudgetUsd?: number } {
  const allowance = attemptAllowance(deps.run.state.budget ?? NO_BUDGET, {
    runUsd: deps.run.state.costUsd,
    storyUsd: deps.run.progressOf(storyId).costUsd,
  });
  return allowance ? { maxBudgetUsd: allowance.usd } : {};
}

/** The recorded answer to the question this story asked, for its prompt. */
function answerFor(
  question: OpenQuestion | null | undefined,
  storyId: string,
): { question: string; text: string } | null {
  if (!question || question.storyId !== storyId || question.answer === null) return null;
  return { question: question.text, text: question.answer };
}

/** Runs the agent on one attempt; a ralphtool error inside it (agent CLI gone, …) ends the run cleanly. */
async function runAgentAttempt(
  setup: LoopSetup,
  deps: LoopDeps,
  story: Story,
  { attempt, agent }: { attempt: number; agent: AttemptAgent },
  previousFailure: AttemptFailure | null,
  tasksBefore: string | null,
): Promise<AttemptResult> {
  const { run } = deps;
  let agentRecorded: Promise<void> = Promise.resolve();
  try {
    return await runAttempt(
      {
        repoRoot: setup.repoRoot,
        env: setup.env,
        change: setup.change,
        paths: setup.paths,
        story,
        attempt,
        previousFailure,
        answer: answerFor(run.state.question, story.id),
        verify: setup.verify,
        ratchet: run.state.verify ?? null,
        learningsPath: run.paths.learnings,
        instructions: setup.instructions ?? null,
        promptPath: promptFile(run.paths, story.id, attempt),
        transcriptPath: transcriptFile(run.paths, story.id, attempt),
        onUsage: (usage) =>
          deps.account?.sawUsage(agent.agent, usage, deps.clock?.now() ?? Date.now()),
        onAgentSpawn: (pgid) => {
          agentRecorded = run.recordAgent(pgid, processIdentity(pgid));
        },
        tasks: { before: tasksBefore, read: () => readTasksText(setup) },
        ...(setup.reviewFix === undefined ? {} : { reviewFix: setup.reviewFix }),
        ...allowanceOf(deps, story.id),
        beforeGitReads: () => run.putBackGitDir(attemptName(story.id, attempt)),
        ...secretCheckOf(deps, setup),
        ...testGateOf(deps, setup),
        ...markersGateOf(deps, setup, story.id),
      },
      {
        backend: agent.backend,
        // The model is the attempt's agent's (a fallback has its own `--fallback-model`).
        options: { ...setup.options, model: agent.model },
        stop: deps.stop,
        emit: deps.emit,
        rereadStories: setup.rereadStories,
        requirements: setup.change.requirements,
      },
    );
  } catch (error) {
    if (!(error instanceof RalphError)) throw error;
    return {
      verdict: { accepted: false, kind: 'agent-error', reason: error.message },
      fatal: error.message,
      costUsd: 0,
      durationMs: 0,
    };
  } finally {
    await agentRecorded;
  }
}
