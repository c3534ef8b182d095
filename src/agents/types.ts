import type { WrappedCommand } from '../process/sandbox.js';
import type { SandboxBlock } from '../core/sandbox-blocks.js';
import type { LimitKind, TokenUsage } from '../core/events.js';

/**
 * The agent's own report that it stopped at a usage/rate limit or a transient API error (never
 * text it merely printed or read): the attempt is waited out, not counted.
 */
export interface AgentLimit {
  kind: LimitKind;
  /** When the limit resets (ISO 8601), when the agent said so. */
  resetsAt: string | null;
  /** Which report said so, e.g. `claude rate_limit_event`, `codex turn.failed`, `exit 75`. */
  source: string;
  message: string;
}

/** What every agent backend reports, whatever its vendor's stream looks like. */
export type AgentEvent =
  | { type: 'message'; text: string }
  | { type: 'tool'; name: string; summary: string }
  | {
      type: 'result';
      turns: number;
      tokens: TokenUsage;
      /** Null when the agent reports no cost of its own. */
      costUsd: number | null;
      durationMs: number;
      isError: boolean;
      text: string;
    }
  | { type: 'error'; message: string; fatal: boolean }
  /** The agent's own word on a delay that is not its work (an API retry): shown, not judged. */
  | { type: 'notice'; text: string }
  /**
   * The agent's own report of its account's usage window (Claude Code's `rate_limit_event`
   * `utilization`): kept for the usage governor (run/account-governor.ts), never judged.
   */
  | { type: 'usage'; percent: number; resetsAt: string; window: string | null }
  /**
   * A line of the agent's machine-readable stream whose shape this translator does not know (a
   * newer agent version): `what` names it (the event's `type`, or `type/subtype`). Never judged;
   * the run reports each name once, with a hint to upgrade ralphtool.
   */
  | {
      type: 'unknown';
      what: string;
      /** The agent's version when its own stream said it (Claude Code's `system/init`). */
      version?: string;
    };

export interface AttemptRequest {
  prompt: string;
  /** The repository root. */
  cwd: string;
  /** Aborting stops the agent's whole process group. */
  signal: AbortSignal;
  change: string;
  storyId: string;
  attempt: number;
  model?: string | undefined;
  /** Wall-clock limit in milliseconds; 0 = none. */
  wallTimeoutMs: number;
  /** Limit on time without output in milliseconds; 0 = none. */
  idleTimeoutMs: number;
  /** Raw agent output plus stderr is appended here. */
  transcriptPath: string;
  /** The prompt is written here first (RALPHTOOL_PROMPT_FILE). */
  promptFilePath: string;
  onEvent: (event: AgentEvent) => void;
  /** Told the agent's process group id once it started. */
  onSpawn?: (pgid: number) => void;
  /**
   * What the attempt may spend (the budget left, docs/contract.md "Budgets"): Claude Code gets it
   * as `--max-budget-usd`; agents that report no cost ignore it. Absent: no budget.
   */
  maxBudgetUsd?: number | undefined;
  /**
   * The independent review (docs/contract.md, "The review"): the agent in its read-only mode
   * (Claude Code `--permission-mode plan`, Codex `--sandbox read-only`, Gemini CLI and OpenCode
   * without their auto-approval); whatever it edits anyway is reverted by the loop.
   */
  readOnly?: boolean;
  /** `--sandbox`: the agent is started through it (run/sandbox.ts); absent: as it is. */
  sandbox?: AgentSandbox | undefined;
}

/** Starts an agent contained (`--sandbox`): its program and arguments made into a wrapped command. */
export interface AgentSandbox {
  wrap(program: string, args: readonly string[], workTree: string): Promise<WrappedCommand>;
}

export interface AttemptOutput {
  /** `--sandbox`: what the sandbox refused the agent (core/sandbox-blocks.ts); absent: nothing. */
  sandboxBlocks?: SandboxBlock[];
  /** The agent's own final answer: the only text signals are read from. */
  finalAnswer: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: 'wall' | 'idle' | null;
  /** Stopped through AttemptRequest.signal. */
  aborted: boolean;
  stderrTail: string;
  /** The agent reported a failed run (`is_error`, `turn.failed`). */
  agentError: string | null;
  /** Retrying cannot help (not logged in, refused to run as root): the run stops with this message. */
  fatal: string | null;
  /** The attempt ended at a limit the agent reported; null otherwise. */
  limit: AgentLimit | null;
  /** The agent stopped at the `maxBudgetUsd` it was given (its own words); absent or null otherwise. */
  budgetReached?: string | null;
}

export interface AgentBackend {
  readonly name: string;
  runAttempt(request: AttemptRequest): Promise<AttemptOutput>;
}

/** The verdict a translator draws from a whole stream, once it has ended. */
export interface TranslatedOutcome {
  finalAnswer: string;
  agentError: string | null;
  fatal: string | null;
  /** Absent or null: no limit was reported. */
  limit?: AgentLimit | null;
  /** The agent stopped at the budget it was given (`maxBudgetUsd`); absent or null otherwise. */
  budgetReached?: string | null;
}

/** Turns one vendor's stdout lines into AgentEvents. Pure: no I/O, no clock. */
export interface StreamTranslator {
  /** Events for one stdout line; `truncated` when the line was cut for being too long. */
  push(line: string, truncated: boolean): AgentEvent[];
  /**
   * Called once after the process ended, with the end of its stderr and its exit code (a
   * `command` agent's exit 75 is a limit).
   */
  finish(stderrTail: string, exitCode?: number | null): TranslatedOutcome;
  /**
   * False for a line that is no progress (a retry or reconnect notice): it does not reset the
   * idle timer, so an agent that only ever retries is still stopped. Absent: every line is.
   */
  isProgress?(line: string): boolean;
  /**
   * What the agent prints on stdout: `json-lines` (one JSON object a line: a stream that holds
   * none is the wrong program or version, stopped early, see run-agent-process.ts) or `text`
   * (anything, the `command` agent). Absent: `json-lines`, what every vendor CLI prints.
   */
  readonly format?: 'json-lines' | 'text';
}
