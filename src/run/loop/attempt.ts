import { secretWrittenReason } from './secret-gate.js';
import type { WrittenSecret } from '../secrets.js';
import type { AgentBackend, AgentEvent, AgentLimit } from '../../agents/types.js';
import { unrecognisedHint } from '../../agents/unrecognised.js';
import type { Change, Requirement, Story } from '../../core/change.js';
import type {
  AttemptFailure,
  RunEvent,
  TestChange,
  TestChangesAllowance,
  VerifyResult,
} from '../../core/events.js';
import { judgeAttempt, type AttemptVerdict } from '../../core/judge.js';
import { buildPrompt, type PromptChangePaths } from '../../core/prompt.js';
import { withoutEchoedPrompt } from '../../core/signal.js';
import { compareTasks, type TasksScope } from '../../openspec/tasks-scope.js';
import { describeTasksEdits } from '../../core/tasks-edits.js';
import { testChangesAllowance, testsWeakenedReason } from '../../core/tests-weakened.js';
import {
  blocks,
  toleratedCommands,
  withTolerance,
  type RatchetEntry,
} from '../../core/verify-ratchet.js';
import { readLearnings } from './learnings.js';
import type { SandboxBlock } from '../../core/sandbox-blocks.js';
import type { RunOptions } from '../options.js';
import { runVerifyCommands, type FlakyVerify } from './verify.js';
import { markersLeftReason } from '../../core/resolve-story.js';

export interface AttemptPlan {
  repoRoot: string;
  /** The environment --verify commands run with. */
  env: NodeJS.ProcessEnv;
  change: Change;
  paths: PromptChangePaths;
  story: Story;
  attempt: number;
  previousFailure: AttemptFailure | null;
  /** The answer to the question an earlier attempt of this story asked, while it is open. */
  answer?: { question: string; text: string } | null;
  verify: { commands: readonly string[]; inferred: boolean };
  /** The verify ratchet as recorded; null (or absent) when every `--verify` failure blocks. */
  ratchet?: readonly RatchetEntry[] | null;
  learningsPath: string;
  /** The project's instructions for agents, given in every prompt. */
  instructions?: string | null;
  promptPath: string;
  transcriptPath: string;
  /** Told the agent's process group once it runs, so a crash can kill it later. */
  onAgentSpawn?: (pgid: number) => void;
  /** Told each utilisation of the account's window the agent reports (the usage governor). */
  onUsage?: (usage: { percent: number; resetsAt: string; window: string | null }) => void;
  /** What this attempt may spend, from the budget left (Claude Code's `--max-budget-usd`). */
  maxBudgetUsd?: number;
  /**
   * A run that pushes: where the attempt wrote a secret's value into a file (loop/secret-gate.ts),
   * or null; absent for a run that pushes nowhere.
   */
  secretWritten?: () => Promise<WrittenSecret | null>;
  /**
   * Puts back what the agent changed in the git directory, before the gates below read the
   * attempt with git: its config must not steer ralphtool's git (a clean filter would run in it).
   */
  beforeGitReads?: () => Promise<void>;
  /** What the attempt did to the tests and to what verify runs, since its checkpoint (test-gate.ts). */
  testChanges?: () => Promise<TestChange[]>;
  /**
   * The resolve story (`--resolve-conflicts`, loop/resolve.ts): the colliding files that still
   * hold a conflict marker line; absent for every other story.
   */
  markersLeft?: () => Promise<string[]>;
  /**
   * tasks.md as the checkpoint has it, and a reader of it after the attempt (null when it cannot
   * be read), to tell the attempt's own edits from those of other stories.
   */
  tasks?: { before: string | null; read: () => Promise<string | null> };
  /**
   * The attempt fixes what the independent review rejected (loop/review.ts): its prompt says
   * the reasons, and it has no tasks to tick (it is judged by its signal, the gates and verify).
   */
  reviewFix?: { round: number; reasons: string };
}

/** What the attempt did to tasks.md, when it and the checkpoint's could both be read. */
export interface TasksAfter extends TasksScope {
  before: string;
  after: string;
}

export interface AttemptResult {
  /** Kind `stopped` when the user stopped the run during the attempt: not judged, only reverted. */
  verdict: AttemptVerdict;
  /** A failure retrying cannot fix (authentication, root refusal): the run ends. */
  fatal: string | null;
  costUsd: number;
  durationMs: number;
  /** The limit the agent reported, when the verdict is `limited`. */
  limit?: AgentLimit;
  /** Absent when the agent did not get to an end that is judged, or tasks.md was unreadable. */
  tasksAfter?: TasksAfter;
  /** The `--verify` commands that ran on the attempt, with their results; absent when none ran. */
  verify?: VerifyResult[];
  /** Verify commands that failed and passed when run again; absent when none did. */
  flaky?: FlakyVerify[];
  /** `--sandbox`: what the sandbox refused the agent (core/sandbox-blocks.ts); absent: nothing. */
  sandboxBlocks?: SandboxBlock[];
  /** Test changes the gate let through (the flag, or a task of the story); absent when none. */
  testsChanged?: { changes: TestChange[]; allowance: TestChangesAllowance };
}

/** What runs an attempt: the agent and the run's options, and what it reports to and reads. */
export interface AttemptRunner {
  backend: AgentBackend;
  /** The run's options, with the model of the attempt's agent. */
  options: RunOptions;
  stop: AbortSignal;
  emit: (event: RunEvent) => void;
  /** The change's stories as tasks.md says once the agent is done. */
  rereadStories: () => Promise<Story[] | null>;
  /** The change's requirements and scenarios, for the prompt. */
  requirements: readonly Requirement[];
}

const STOPPED: AttemptVerdict = { accepted: false, kind: 'stopped', reason: 'stopped by the user' };

/**
 * One attempt at one story: prompt, agent, judgement, verification. Touches no git:
 * the orchestrator checkpoints or reverts afterwards.
 */
export async function runAttempt(plan: AttemptPlan, by: AttemptRunner): Promise<AttemptResult> {
  const { backend, options, stop, emit, rereadStories, requirements } = by;
  const started = Date.now();
  const prompt = buildPrompt({
    changeName: plan.change.name,
    paths: plan.paths,
    story: plan.story,
    attempt: plan.attempt,
    maxAttempts: options.maxRetries + 1,
    previousFailure: plan.previousFailure,
    answer: plan.answer ?? null,
    requirements,
    verify: {
      ...plan.verify,
      tolerated: tolerated(plan, options),
      testChangesAllowed: options.allowTestChanges,
    },
    learnings: { path: plan.learningsPath, content: await readLearnings(plan.learningsPath) },
    instructions: plan.instructions ?? null,
    template: options.promptTemplate ?? null,
    ...(plan.reviewFix === undefined ? {} : { reviewFix: plan.reviewFix }),
  });
  // The backend writes the prompt to plan.promptPath (its RALPHTOOL_PROMPT_FILE), once.

  let costUsd = 0;
  const { storyId } = { storyId: plan.story.id };
  const attempt = plan.attempt;
  const onEvent = (event: AgentEvent): void => {
    switch (event.type) {
      case 'message':
        emit({ type: 'agent.message', storyId, attempt, text: event.text });
        return;
      case 'tool':
        emit({ type: 'agent.tool', storyId, attempt, name: event.name, summary: event.summary });
        return;
      case 'result':
        costUsd += event.costUsd ?? 0;
        emit({
          type: 'agent.result',
          storyId,
          attempt,
          turns: event.turns,
          tokens: event.tokens,
          costUsd: event.costUsd,
          durationMs: event.durationMs,
          isError: event.isError,
        });
        return;
      case 'notice':
        emit({ type: 'agent.notice', storyId, attempt, text: event.text });
        return;
      case 'usage':
        plan.onUsage?.({ percent: event.percent, resetsAt: event.resetsAt, window: event.window });
        return;
      case 'unknown':
        // Said once per kind a run (the loop filters repeats), never judged.
        emit({
          type: 'agent.unrecognised',
          storyId,
          attempt,
          agent: backend.name,
          what: event.what,
          hint: unrecognisedHint(backend.name, event.version),
        });
        return;
      case 'error':
        // A fatal one ends the run; the orchestrator reports it once, with what to do.
        if (!event.fatal) emit({ type: 'error', message: event.message, fatal: false });
        return;
    }
  };

  const output = await backend.runAttempt({
    prompt,
    cwd: plan.repoRoot,
    signal: stop,
    change: plan.change.name,
    storyId,
    attempt,
    model: options.model ?? undefined,
    wallTimeoutMs: options.agentTimeoutMs,
    idleTimeoutMs: options.idleTimeoutMs,
    transcriptPath: plan.transcriptPath,
    promptFilePath: plan.promptPath,
    onEvent,
    ...(plan.onAgentSpawn ? { onSpawn: plan.onAgentSpawn } : {}),
    ...(plan.maxBudgetUsd !== undefined ? { maxBudgetUsd: plan.maxBudgetUsd } : {}),
  });
  const durationMs = Date.now() - started;
  const blocked = output.sandboxBlocks ?? [];
  // What the sandbox refused the agent, said whatever becomes of the attempt.
  if (blocked.length > 0) emit({ type: 'sandbox.blocked', storyId, attempt, blocked });
  const base = { costUsd, durationMs, ...(blocked.length > 0 ? { sandboxBlocks: blocked } : {}) };
  if (output.aborted || stop.aborted) return { ...base, fatal: null, verdict: STOPPED };
  if (output.fatal !== null) {
    return {
      ...base,
      fatal: output.fatal,
      verdict: { accepted: false, kind: 'agent-error', reason: output.fatal },
    };
  }

  const storiesAfter = await rereadStories();
  // A review's fix attempt is no story of tasks.md: it has no tasks to tick.
  const storyAfter =
    plan.reviewFix !== undefined
      ? plan.story
      : storiesAfter === null
        ? null
        : storiesAfter.find((s) => s.id === plan.story.id);
  const answer = withoutEchoedPrompt(output.finalAnswer, prompt);
  let verdict = judgeAttempt(
    { ...output, finalAnswer: answer },
    storyAfter,
    plan.story.id,
    plan.paths.tasks,
  );
  const tasksAfter = await tasksScope(plan);
  if (verdict.accepted && tasksAfter && tasksAfter.ownBroken.length > 0) {
    verdict = ownTasksEdited(tasksAfter, plan);
  }
  if (!verdict.accepted && verdict.kind === 'budget') return { ...base, fatal: null, verdict };
  if (!verdict.accepted && verdict.kind === 'limited' && output.limit) {
    // Not the agent's doing: what it did to tasks.md is not reported, only reverted.
    return { ...base, fatal: null, verdict, limit: output.limit };
  }
  const withTasks = tasksAfter ? { ...base, tasksAfter } : base;
  if (verdict.accepted) await plan.beforeGitReads?.();
  // A run that pushes: a secret's value in the attempt's files would reach the remote.
  const secret = verdict.accepted ? ((await plan.secretWritten?.()) ?? null) : null;
  if (secret !== null) {
    verdict = { accepted: false, kind: 'secret-written', reason: secretWrittenReason(secret) };
    return { ...withTasks, fatal: null, verdict };
  }
  // The check cannot be made to pass by weakening it: unless something lets the changes through.
  const changes = verdict.accepted ? ((await plan.testChanges?.()) ?? []) : [];
  const allowance =
    changes.length > 0 ? testChangesAllowance(plan.story, options.allowTestChanges) : null;
  if (changes.length > 0 && allowance === null) {
    verdict = { accepted: false, kind: 'tests-weakened', reason: testsWeakenedReason(changes) };
    return { ...withTasks, fatal: null, verdict };
  }
  const gated =
    allowance === null ? withTasks : { ...withTasks, testsChanged: { changes, allowance } };
  // The resolve story is not done while a conflict marker is left in a file that collided.
  const markers = verdict.accepted ? ((await plan.markersLeft?.()) ?? []) : [];
  if (markers.length > 0) {
    verdict = { accepted: false, kind: 'conflict-markers', reason: markersLeftReason(markers) };
    return { ...gated, fatal: null, verdict };
  }
  if (allowance !== null) emit({ type: 'tests.changed', storyId, attempt, changes, ...allowance });
  if (verdict.accepted && options.verify.length > 0) {
    const isBlocking = (command: string): boolean =>
      blocks(plan.ratchet ?? null, command, options.verifyStrict);
    const ran = await runVerifyCommands(
      options.verify,
      plan.repoRoot,
      plan.env,
      options.verifyTimeoutMs,
      stop,
      isBlocking,
      true,
    );
    if (stop.aborted) return { ...base, fatal: null, verdict: STOPPED };
    // A flake is said and counted, never held against the attempt: it is judged on the rerun.
    for (const flake of ran.flaky) {
      const { command, firstFailure: failure } = flake;
      emit({ type: 'verify.flaky', storyId, attempt, command, failure });
    }
    const flaky = ran.flaky.length > 0 ? { flaky: ran.flaky } : {};
    const { failure } = ran;
    if (failure) verdict = { accepted: false, kind: 'verify-failed', reason: failure.reason };
    const verify = withTolerance(ran.outcomes, isBlocking);
    if (verify.length > 0) return { ...gated, ...flaky, fatal: null, verdict, verify };
  }
  return { ...gated, fatal: null, verdict };
}

/** The `--verify` commands that fail at the checkpoint and do not block yet: told the agent. */
function tolerated(plan: AttemptPlan, options: RunOptions): string[] {
  if (plan.verify.inferred) return [];
  return toleratedCommands(plan.ratchet ?? null, plan.verify.commands, options.verifyStrict);
}

async function tasksScope(plan: AttemptPlan): Promise<TasksAfter | undefined> {
  const before = plan.tasks?.before ?? null;
  const after = before === null ? null : ((await plan.tasks?.read()) ?? null);
  if (before === null || after === null) return undefined;
  return { before, after, ...compareTasks(before, after, plan.story.id) };
}

/**
 * A story whose own tasks were removed or reworded cannot be judged by them: ticking what is
 * left would otherwise pass (docs/contract.md, "An attempt works on its own story").
 */
function ownTasksEdited(tasks: TasksAfter, plan: AttemptPlan): AttemptVerdict {
  return {
    accepted: false,
    kind: 'tasks-edited',
    reason: `the attempt changed story ${plan.story.id}'s own tasks in ${plan.paths.tasks} (${describeTasksEdits(tasks.ownBroken)}): keep every task's text as it is and only tick its box`,
  };
}
