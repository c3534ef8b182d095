import type { Secret } from '../core/redact.js';
import type { AgentBackend } from '../agents/types.js';
import type { AgentSlot } from '../core/agent-choice.js';
import type { AccountGovernor } from './account-governor.js';
import type { Clock } from '../core/clock.js';
import type { Change, Story } from '../core/change.js';
import type { CompletionChoice, RunEvent, RunOutcome, SandboxInfo } from '../core/events.js';
import type { PromptChangePaths } from '../core/prompt.js';
import type { CheckpointRun } from '../checkpoint/index.js';
import type { AccountPause } from './account-pause.js';
import type { RunOptions } from './options.js';

/** The reviewer of a run with a review (docs/contract.md, "The review"): its backend and name. */
export interface Reviewer {
  backend: AgentBackend;
  /** An agent kind, or `command`. */
  name: string;
}

// What runLoop takes and returns; its steps (story-attempt.ts, run-end.ts) share these.

export interface LoopSetup {
  repoRoot: string;
  change: Change;
  paths: PromptChangePaths;
  options: RunOptions;
  /** The environment --verify commands run with (the one the command was given). */
  env: NodeJS.ProcessEnv;
  verify: { commands: readonly string[]; inferred: boolean };
  /** The project's instructions for agents (`.ralphtool/instructions.md`), read as the loop starts. */
  instructions?: string | null;
  /** Re-reads the change's stories from tasks.md; null when it cannot be read. */
  rereadStories: () => Promise<Story[] | null>;
  /** The attempt fixes what a review rejected (loop/review.ts): its round and the reasons. */
  reviewFix?: { round: number; reasons: string };
}

/**
 * How the loop learns the user's completion choice (flag, prompt or UI); null when no choice
 * can be made (the question went unanswered).
 */
export type ChooseCompletion = (
  outcome: RunOutcome,
  /** How the run goes on: `resolveConflicts`, its `--resolve-conflicts` (the intent's on a resume). */
  run?: { resolveConflicts: boolean },
) => Promise<CompletionChoice | null>;

export interface LoopDeps {
  run: CheckpointRun;
  backend: AgentBackend;
  /**
   * The backend of a fallback agent (`--fallback-agent`), its program checked first; absent
   * where no fallback can be given (then a run with recorded fallbacks refuses them).
   */
  backendFor?: (slot: AgentSlot) => AgentBackend;
  emit: (event: RunEvent) => void;
  /** The independent reviewer (`--review`, loop/reviewer.ts); absent: no review. */
  reviewer?: Reviewer | null;
  chooseCompletion: ChooseCompletion;
  /** Aborted when the user asks to stop (Ctrl-C, SIGTERM, `q`). */
  stop: AbortSignal;
  /** One-line notes for the user that are not events (a budget `resume` replaced). */
  notice?: (message: string) => void;
  /** Several runs in one process: the usage-limit pause they share (absent for one run). */
  accountPause?: AccountPause;
  /**
   * The usage governor of the agent's account, shared with every run of the user through a file
   * (run/account-governor.ts); absent where no run shares it (the in-process tests).
   */
  account?: AccountGovernor;
  /**
   * The time limit waits, `--max-duration` and agents' resets are measured on (default: the
   * system clock; the in-process tests move it on instead of waiting).
   */
  clock?: Clock;
  /**
   * A run that pushes (`--push`): the secrets a file of an attempt must not hold (the
   * environment's and the dotenv files' whose names say secret), read before each check.
   */
  pushedSecrets?: () => Promise<readonly Secret[]>;
  /** `--sandbox`: what `run.started` says of it (run/sandbox.ts); absent: not sandboxed. */
  sandbox?: SandboxInfo;
}

/** LoopDeps inside the loop: the clock chosen. */
export type LoopContext = LoopDeps & { clock: Clock };

export interface LoopResult {
  outcome: RunOutcome;
  /** Null when the run ended in an error and stays recorded for resume/finish. */
  choice: CompletionChoice | null;
  exitCode: number;
}
