import { join } from 'node:path';
import { UsageError } from '../core/errors.js';
import { assertValidChangeName } from '../core/change-name.js';
import { runPaths, type RunPaths } from './paths.js';
import { git, type GitContext } from '../git/git.js';
import type { RefWriter } from '../git/ref-writer.js';
import { ENGINE_CONFIG } from '../git/engine-config.js';
import { locateRepo, type RepoLocation } from '../git/repo.js';
import type { CallOptions, RunLocation } from './types.js';
import type { StepObserver } from './journal.js';

/** What the git sequences of one run need to know. */
export interface RunGit {
  ctx: GitContext;
  repo: RepoLocation;
  change: string;
  /** `ralph/<change>` */
  branch: string;
  paths: RunPaths;
  /**
   * Where the change's tasks.md files are, once a search of this run found them
   * (ignored-tasks.ts); absent for a one-off sequence, which searches every time.
   */
  tasksFiles?: TasksFilesMemo;
  /**
   * The run's writer of its own refs (`refs/ralphtool/…`) through one git process kept open;
   * absent for a one-off sequence, whose updates run `git update-ref` each (`setOwnRef`).
   */
  refs?: RefWriter;
}

/** Points a ref of ralphtool's own at `sha`: through the run's writer when it has one. */
export async function setOwnRef(
  g: RunGit,
  ref: string,
  sha: string,
  context: string,
): Promise<void> {
  if (g.refs) await g.refs.update(ref, sha, context);
  else await git(g.ctx, ['update-ref', ref, sha], { context });
}

/**
 * The change's tasks.md files a run found (`paths`, null before the first search) and which of
 * them are tracked at the checkpoint (`tracked`): a tracked file is no ignored one, so when
 * every one found is tracked no search is needed. Kept up to date by every accept (ignored-tasks.ts,
 * `tasksFilesCommitted`).
 */
export interface TasksFilesMemo {
  paths: string[] | null;
  tracked: Set<string>;
}

export interface EngineOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  /** The environment git starts from (RunLocation's). */
  baseEnv: NodeJS.ProcessEnv;
  env?: Record<string, string | undefined>;
  /**
   * Told of each step of each git sequence as it ends (journal.ts): what the in-process crash
   * rows of the tests throw from, to stop a sequence between any two steps.
   */
  observeSteps?: StepObserver;
}

/**
 * A context that runs at the top level, because `git clean` only cleans below its cwd. The
 * git directory and the work tree are pinned to where the repository was found
 * (`GIT_DIR`, `GIT_WORK_TREE`): a `core.worktree` or `core.bare` an agent wrote into the
 * config cannot send the engine's resets and cleans to another folder.
 */
export function engineContext(repo: RepoLocation, opts: EngineOptions): GitContext {
  return {
    cwd: repo.root,
    timeoutMs: opts.timeoutMs,
    config: ENGINE_CONFIG,
    baseEnv: opts.baseEnv,
    ...(opts.signal ? { signal: opts.signal } : {}),
    env: { ...opts.env, GIT_DIR: repo.gitDir, GIT_WORK_TREE: repo.root },
  };
}

/**
 * A context whose git writes its scratch files (`unpack-file`, `merge-file`) into `dir`, a folder
 * of the run: the git directory stays pinned, the work tree is not set, because with
 * `GIT_WORK_TREE` git moves to the work tree's top and would write the files there.
 */
export function scratchContext(ctx: GitContext, dir: string): GitContext {
  return { ...ctx, cwd: dir, env: { ...ctx.env, GIT_WORK_TREE: undefined } };
}

/** The index file of this work tree (GIT_INDEX_FILE is never inherited, see git.ts). */
export function indexFile(repo: RepoLocation): string {
  return join(repo.gitDir, 'index');
}

/** The refusal for a directory outside any git work tree. */
export function notInRepo(cwd: string): UsageError {
  return new UsageError(
    `${cwd} is not inside a git work tree: run ralphtool in your repository (or pass -C <dir>), or create one with \`git init\``,
  );
}

/** Where a command about one change's run works: the repository, its context, the run folder. */
export interface LocatedRun {
  change: string;
  repo: RepoLocation;
  ctx: GitContext;
  engine: EngineOptions;
  paths: RunPaths;
}

/**
 * The first steps of start, open and inspect: a valid change name, the repository around
 * `cwd` (refused outside one), the engine's git context and the change's run folder.
 */
export async function locateRun(opts: RunLocation & CallOptions): Promise<LocatedRun> {
  const change = assertValidChangeName(opts.change);
  const engine: EngineOptions = {
    timeoutMs: opts.timeoutMs,
    baseEnv: opts.baseEnv,
    ...(opts.env ? { env: opts.env } : {}),
    ...(opts.signal ? { signal: opts.signal } : {}),
    ...(opts.observeSteps ? { observeSteps: opts.observeSteps } : {}),
  };
  const repo = await locateRepo({ cwd: opts.cwd, ...engine });
  if (!repo) throw notInRepo(opts.cwd);
  return {
    change,
    repo,
    ctx: engineContext(repo, engine),
    engine,
    paths: runPaths(repo.gitCommonDir, change),
  };
}
