import type { AgentLogin } from '../agents/login-status.js';
import type { AgentProgram } from '../agents/programs.js';
import type { ChangeSummary } from '../core/change.js';
import type { HeadPosition } from '../git/repo.js';
import type { GitOperation } from '../git/status.js';
import type { RunStatus } from '../run/status/status.js';

/**
 * What `ralphtool doctor` found out about this machine and directory. Gathered by
 * gather.ts, judged by the pure checks in checks.ts.
 */
export interface DoctorFacts {
  /** null: git was not found on PATH. */
  git: { version: string | null; raw: string } | null;
  /** user.name / user.email as commits here would get them (config or environment). */
  identity: { name: string | null; email: string | null };
  /** null: not inside a git work tree (or git is missing). */
  repo: RepoFacts | null;
  openspec: OpenSpecFacts;
  claude: ProgramFacts;
  codex: ProgramFacts;
  opencode: ProgramFacts;
  gemini: ProgramFacts;
  /** The process's user id; null where there is none (Windows). */
  uid: number | null;
  /** IS_SANDBOX=1 is set (Claude Code then allows --dangerously-skip-permissions as root). */
  sandbox: boolean;
  /** Why `run --sandbox` cannot work here and what to do; null: it works (a wrapped `true` ran). */
  sandboxProblem: { reason: string; remedy: string } | null;
}

export interface RepoFacts {
  root: string;
  head: HeadPosition;
  /** Changed, staged and untracked files. */
  changedFiles: number;
  operations: GitOperation[];
  runs: RunStatus[];
}

export type OpenSpecFacts =
  | { found: true; root: string; changes: ChangeSummary[] }
  | { found: false }
  | { found: true; root: string; error: string };

/** An agent program as looked for (`claude`, or the value of RALPHTOOL_CLAUDE_BIN), and what was found. */
export interface ProgramFacts extends AgentProgram {
  /** Absolute path when found. */
  path: string | null;
  /** First line of `--version`; null when it failed. */
  version: string | null;
  /** Why `--version` failed, when it did. */
  versionError: string | null;
  /** What its own login status says (claude and codex; absent: not asked). */
  login?: AgentLogin;
}
