import { existsSync } from 'node:fs';
import { join, relative } from 'node:path';
import { UsageError } from '../../core/errors.js';
import {
  createRunWorktree,
  engineContext,
  notInRepo,
  readRunState,
  recreateRunWorktree,
  refuseRecordedRun,
  removeFreshWorktree,
  type RunHome,
  runPaths,
  type RunState,
  runStateExists,
} from '../../checkpoint/index.js';
import type { GitContext } from '../../git/git.js';
import { headPosition, locateRepo, type HeadPosition, type RepoLocation } from '../../git/repo.js';
import { statusEntries } from '../../git/status.js';
import { changePaths } from '../../openspec/changes.js';
import type { HeldLock } from '../lock.js';
import { lockWorkTree } from '../session.js';

/** Where a run in a worktree of its own works, once that worktree exists and is locked. */
export interface WorktreePlace {
  /** The directory holding `openspec/` inside the run's worktree. */
  specRoot: string;
  /** The run's worktree lock; released by the caller. */
  lock: HeldLock;
}

export interface WorktreeStart extends WorktreePlace {
  home: RunHome;
  /** Where the user's HEAD was: the run's original branch. */
  homeHead: HeadPosition;
  /** Removes the worktree again when the start is refused before the run was recorded. */
  undo(): Promise<void>;
}

interface Where {
  specRoot: string;
  change: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
}

/**
 * `run --worktree`: checks what can be checked before anything is made (a commit to start
 * from, no run recorded), says when the user's own changes stay out of the run, creates the
 * worktree at the user's HEAD with the change's folder as the user has it, and locks it.
 */
export async function prepareWorktreeStart(
  where: Where & { keepWorktree: boolean; worktreeParent: string | null },
  notice: (message: string) => void,
): Promise<WorktreeStart> {
  const { repo, ctx } = await homeRepo(where);
  const head = await headPosition(ctx);
  if (head.kind === 'unborn') {
    throw new UsageError(
      `--worktree starts the run from your HEAD commit, and ${head.name} has none yet: make a first commit, or run without --worktree`,
    );
  }
  refuseRecordedRun(
    await readRunState(runPaths(repo.gitCommonDir, where.change).state),
    where.change,
  );
  const changeDir = changePaths(where.specRoot, where.change).dir;
  const own = relative(repo.root, changeDir);
  const dirty = (await statusEntries(ctx, { readOnly: true })).filter(
    (e) => e.path !== own && !e.path.startsWith(`${own}/`),
  );
  const dir = await createRunWorktree({
    homeCtx: ctx,
    homeRoot: repo.root,
    parent: where.worktreeParent,
    change: where.change,
    sha: head.sha,
    changeDir,
  });
  if (dirty.length > 0) {
    notice(
      `${String(dirty.length)} uncommitted change(s) in your work tree are not part of the run of ${where.change}: it starts from ${head.sha.slice(0, 12)} in ${dir} (with the change's folder as you have it)`,
    );
  }
  const undo = async (): Promise<void> => {
    if (!(await runStateExists(runPaths(repo.gitCommonDir, where.change).state))) {
      await removeFreshWorktree(ctx, dir);
    }
  };
  try {
    const place = await lockPlace(dir, relative(repo.root, where.specRoot), where);
    return {
      ...place,
      home: { root: repo.root, gitDir: repo.gitDir, keepWorktree: where.keepWorktree },
      homeHead: head,
      undo,
    };
  } catch (error) {
    await undo();
    throw error;
  }
}

/**
 * The recorded run's worktree when it is a run in a worktree of its own (null otherwise), for
 * `resume`, `finish` and `status` started from the user's work tree or the run's own.
 */
export async function recordedHome(where: Where): Promise<RecordedHome | null> {
  const { repo } = await homeRepo(where);
  const state = await readRunState(runPaths(repo.gitCommonDir, where.change).state);
  // A finished run has no worktree to go to: the usual refusals say so.
  if (!state?.home || !state.worktree || state.status === 'finished') return null;
  return {
    state,
    home: state.home,
    worktreeRoot: state.worktree.root,
    specRelative: relative(repo.root, where.specRoot),
  };
}

export interface RecordedHome {
  state: RunState;
  home: RunHome;
  worktreeRoot: string;
  /** Where `openspec/` is below the top of a work tree. */
  specRelative: string;
}

/** Locks the recorded run's worktree and says where its `openspec/` is. */
export async function openWorktreePlace(
  recorded: RecordedHome,
  where: Where,
  notice: (message: string) => void,
): Promise<WorktreePlace> {
  if (!existsSync(recorded.worktreeRoot)) {
    // Deleted by hand, or given back by a keep of an incomplete run: made again from the branch.
    const { repo, ctx } = await homeRepo(where);
    await recreateRunWorktree(ctx, runPaths(repo.gitCommonDir, where.change), recorded.state);
    notice(
      `the worktree of the run of ${where.change} was missing: recreated ${recorded.worktreeRoot} from ralph/${where.change} (its last checkpoint)`,
    );
  }
  return lockPlace(recorded.worktreeRoot, recorded.specRelative, where);
}

async function lockPlace(dir: string, specRelative: string, where: Where): Promise<WorktreePlace> {
  const located = await locateRepo({ cwd: dir, timeoutMs: where.timeoutMs, baseEnv: where.env });
  if (!located) throw notInRepo(dir);
  const lock = await lockWorkTree(located.gitDir, where.change);
  return { specRoot: join(dir, specRelative), lock };
}

async function homeRepo(where: Where): Promise<{ repo: RepoLocation; ctx: GitContext }> {
  const engine = { timeoutMs: where.timeoutMs, baseEnv: where.env };
  const repo = await locateRepo({ cwd: where.specRoot, ...engine });
  if (!repo) throw notInRepo(where.specRoot);
  return { repo, ctx: engineContext(repo, engine) };
}
