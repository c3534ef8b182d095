/** The options of `run` and `resume`, validated (contract "`run` / `resume` options"). */
export type AgentKind = 'claude' | 'codex' | 'command';
export type OnComplete = 'ask' | 'cleanup' | 'keep';

export interface RunOptions {
  agent: AgentKind;
  /** For `command`: the program and its arguments as one command line (split, never run by a shell). */
  agentCommand: string | null;
  model: string | null;
  maxRetries: number;
  /** Limit for each git command ralphtool runs. */
  commandTimeoutMs: number;
  /** 0 = no limit. */
  agentTimeoutMs: number;
  /** 0 = no limit. */
  idleTimeoutMs: number;
  verify: readonly string[];
  /** Limit for each `--verify` command; 0 = no limit. */
  verifyTimeoutMs: number;
  onComplete: OnComplete;
  json: boolean;
  force: boolean;
}

export const DEFAULT_RUN_OPTIONS = {
  agent: 'claude',
  maxRetries: 3,
  commandTimeoutMs: 30_000,
  agentTimeoutMs: 60 * 60_000,
  idleTimeoutMs: 15 * 60_000,
  verifyTimeoutMs: 10 * 60_000,
} as const;
