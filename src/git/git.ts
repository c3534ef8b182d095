import { existsSync } from 'node:fs';
import { RuntimeError } from '../core/errors.js';
import { execProgram } from '../process/exec.js';
import type { ExecResult } from '../process/exec.js';
import { ProcessError } from '../process/process-error.js';
import { GitError } from './git-error.js';
import { retryWhileLocked } from './lock-retry.js';

/** Where and how git runs. One context is shared by all the verbs of one operation. */
export interface GitContext {
  cwd: string;
  /** Limit for each git command (the `--command-timeout` option), in milliseconds. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** The environment git starts from: the command's, from CommandIO. */
  baseEnv: NodeJS.ProcessEnv;
  /** Extra environment for every command of this context (e.g. HOME in tests); undefined removes. */
  env?: Record<string, string | undefined>;
  /** `key=value` settings passed as `-c` to every command of this context. */
  config?: readonly string[];
  /**
   * Where the commits of one run keep the identity settings they found (commit.ts): the
   * config is read once per run instead of once per commit.
   */
  identity?: IdentityMemo;
}

/** The fallback identity settings once found; `settings` null until then. */
export interface IdentityMemo {
  settings: readonly string[] | null;
}

export interface GitOptions {
  /** Environment for this one command, applied last (e.g. a temporary GIT_INDEX_FILE). */
  env?: Record<string, string | undefined>;
  /** Written to git's stdin. */
  input?: string | Uint8Array;
  /** When true, a non-zero exit is returned instead of thrown (timeouts and stops still throw). */
  allowFailure?: boolean;
  /** `key=value` settings passed as `-c` to this command only. */
  config?: readonly string[];
  /** Said before the failure in the error message, e.g. "could not save the attempt". */
  context?: string;
}

/**
 * Variables that would point git at another repository, index or object store than the
 * one in `cwd`; a parent process (a git hook, an editor) may have set them.
 */
const INHERITED_REPO_VARIABLES = [
  'GIT_DIR',
  'GIT_WORK_TREE',
  'GIT_INDEX_FILE',
  'GIT_OBJECT_DIRECTORY',
  'GIT_ALTERNATE_OBJECT_DIRECTORIES',
  'GIT_NAMESPACE',
  'GIT_PREFIX',
  'GIT_COMMON_DIR',
];

/** Never wait for a person: no prompts, pagers or editors; messages in one stable language. */
const QUIET_ENVIRONMENT: Record<string, string> = {
  GIT_TERMINAL_PROMPT: '0',
  GIT_PAGER: 'cat',
  PAGER: 'cat',
  GIT_EDITOR: 'true',
  GIT_SEQUENCE_EDITOR: 'true',
  LC_ALL: 'C',
};

/** Runs one git command in `ctx.cwd` without a shell; a failure becomes a GitError. */
export async function git(
  ctx: GitContext,
  args: readonly string[],
  opts: GitOptions = {},
): Promise<ExecResult> {
  const line = gitCommandLine(ctx, args, opts);
  try {
    // Another program's git (an editor polling `git status`) may hold index.lock: wait for it.
    return await retryWhileLocked(ctx.cwd, ctx.signal, () =>
      execProgram(line.command, line.args, {
        cwd: ctx.cwd,
        baseEnv: ctx.baseEnv,
        env: line.env,
        timeoutMs: ctx.timeoutMs,
        ...(ctx.signal ? { signal: ctx.signal } : {}),
        ...(opts.input !== undefined ? { input: opts.input } : {}),
      }),
    );
  } catch (error) {
    if (!(error instanceof ProcessError)) throw error;
    // Node says ENOENT for a missing working directory too: git is not the one missing then.
    if (error.notFound) throw existsSync(ctx.cwd) ? gitNotFound() : folderGone(ctx.cwd);
    const plainExit = !error.timedOut && !error.aborted && !error.signal && error.exitCode !== null;
    if (opts.allowFailure && plainExit) {
      const { stdout, stderr, exitCode, signal, timedOut, aborted } = error;
      return { stdout, stderr, exitCode, signal, timedOut, aborted, notFound: false };
    }
    throw new GitError({ ...error, args, timeoutMs: ctx.timeoutMs }, opts.context);
  }
}

/**
 * The program, arguments and environment (laid over `ctx.baseEnv`) of a git command in `ctx`:
 * the context's and the command's `-c` settings, the quiet environment, no inherited variable
 * that points at another repository. For `git` and for a git process kept open (ref-writer.ts).
 */
export function gitCommandLine(
  ctx: GitContext,
  args: readonly string[],
  opts: Pick<GitOptions, 'config' | 'env'> = {},
): { command: string; args: string[]; env: Record<string, string | undefined> } {
  const settings = ['core.quotepath=false', ...(ctx.config ?? []), ...(opts.config ?? [])];
  const config = settings.flatMap((setting) => ['-c', setting]);
  return { command: 'git', args: [...config, ...args], env: gitEnvironment(ctx.env, opts.env) };
}

/** Trimmed stdout of a git command that must succeed. */
export async function gitOut(
  ctx: GitContext,
  args: readonly string[],
  opts: GitOptions = {},
): Promise<string> {
  return (await git(ctx, args, opts)).stdout.trim();
}

function gitEnvironment(
  ...layers: (Record<string, string | undefined> | undefined)[]
): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = { ...QUIET_ENVIRONMENT };
  for (const name of INHERITED_REPO_VARIABLES) env[name] = undefined;
  for (const layer of layers) Object.assign(env, layer ?? {});
  return env;
}

function folderGone(cwd: string): RuntimeError {
  return new RuntimeError(
    `the folder ${cwd} is gone (deleted or moved while ralphtool worked in it): \`ralphtool status\` says where each run stands and how to go on`,
  );
}

function gitNotFound(): RuntimeError {
  return new RuntimeError(
    'git was not found on PATH: install git (https://git-scm.com) and check with `ralphtool doctor`',
  );
}
