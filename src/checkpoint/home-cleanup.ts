import { existsSync } from 'node:fs';
import { RuntimeError, UsageError } from '../core/errors.js';
import { commitTree } from '../git/commit.js';
import { git } from '../git/git.js';
import type { GitContext } from '../git/git.js';
import { mergeTree } from '../git/merge-tree.js';
import { applyTreeDifference } from '../git/tree-diff-apply.js';
import { headPosition, treeOf, type HeadPosition, type RepoLocation } from '../git/repo.js';
import { operationInProgress } from '../git/status.js';
import { snapshotHome } from './home-snapshot.js';
import { engineContext } from './run-git.js';
import type { EngineOptions, RunGit } from './run-git.js';
import { removeRunWorktree } from './run-worktree.js';
import type { RunHome, RunState } from './state.js';
import { forgetUserBytes } from './user-files.js';
import { Journal, runSteps, type StepObserver, type StepOutcome } from './journal.js';
import { HOME_CLEANUP_STEPS, type HomeCleanupStep } from './plans.js';

/** What the cleanup of a run in a worktree of its own needs from the recorded run. */
export interface HomeCleanupSteps {
  /** Puts the run's worktree at its checkpoint (saving a half-done attempt); called only there. */
  atCheckpoint: () => Promise<void>;
  /** Records (`cleanup`) or forgets (null) the cleanup step in the run's state. */
  recordStep: (op: 'cleanup' | null) => Promise<void>;
  /** Told of each step as it ends (journal.ts); the tests' in-process crashes throw from it. */
  observe?: StepObserver | undefined;
}

/**
 * The cleanup stopped on a collision with the user's work tree, nothing applied: what
 * `--resolve-conflicts` turns into one more story (run/loop/resolve.ts).
 */
export class HomeCollision extends RuntimeError {
  constructor(
    message: string,
    readonly files: readonly string[],
  ) {
    super(message);
  }
}

/** At most this many colliding files are named in the refusal; the rest are counted. */
const FILES_SHOWN = 5;

/**
 * The cleanup of a run in a worktree of its own (docs/git-protocol.md, "Bringing the work home";
 * what the user gets: docs/contract.md, "Bringing the work home (cleanup)"): the run's work goes
 * into the user's work tree as uncommitted changes, next to whatever they did meanwhile, or not
 * at all. Their index, HEAD and branch are never touched; the run's
 * worktree is not checked out anywhere. A collision (or a file changed under the apply) stops
 * it with nothing of theirs touched and the run still recorded, its step forgotten, so that
 * `finish --cleanup` or `finish --keep` ends it later. Its steps are `HOME_CLEANUP_STEPS`
 * (plans.ts), run as a journal; each is safe to run again. Returns a notice, if any, and the
 * journal, which the caller closes once the run's end is recorded.
 */
export async function bringWorkHome(
  g: RunGit,
  state: RunState,
  steps: HomeCleanupSteps,
): Promise<{ notice: string | null; journal: Journal }> {
  const { home, homeRepo, homeCtx, engine } = homeWorkTree(g, state);
  await assertHomeReady(homeCtx, homeRepo, state);
  const worktree = state.worktree ?? null;
  const resumed = state.step?.op === 'cleanup';
  if (!resumed) {
    // Only in the run's own worktree: opened from anywhere else (its folder deleted by hand),
    // there is nothing there to save, and a revert must never run in the user's work tree.
    if (worktree !== null && g.repo.gitDir === worktree.gitDir && existsSync(worktree.root)) {
      await steps.atCheckpoint();
    }
    await steps.recordStep('cleanup');
  }
  const checkpoint = requireSha(state.checkpointSha, state);
  // Once the agent brought the branch onto the user's tree (resolve-home.ts), that is the base.
  const base = state.resolve?.home ?? requireSha(state.baseSha, state);
  const worktreeCtx =
    worktree === null
      ? null
      : engineContext(
          { root: worktree.root, gitDir: worktree.gitDir, gitCommonDir: g.repo.gitCommonDir },
          engine,
        );

  const journal = await Journal.open(g.paths.journal, 'cleanup', resumed);
  const run = async (step: HomeCleanupStep): Promise<StepOutcome | undefined> => {
    switch (step) {
      case 'apply-home':
        await applyHome({ g, state, home, homeCtx, homeRepo, checkpoint, base, steps });
        return undefined;
      case 'free-branch':
        // Detached first (the same commit: no file changes), so the branch can go even when the
        // worktree has to stay.
        if (worktreeCtx !== null && worktree !== null && existsSync(worktree.root)) {
          if (existsSync(worktree.gitDir)) {
            await git(
              worktreeCtx,
              ['update-ref', '--no-deref', '-m', 'ralphtool: cleanup', 'HEAD', checkpoint],
              { context: `could not free ${g.branch} in ${worktree.root}` },
            );
          }
        }
        return undefined;
      case 'remove-worktree':
        if (worktree === null || home.keepWorktree) return undefined;
        if (await removeRunWorktree(homeCtx, worktree.root)) return undefined;
        return {
          data: `the worktree ${worktree.root} was kept: it holds files no commit has (\`git -C ${worktree.root} status\`); remove it with \`git worktree remove ${worktree.root}\` once you have looked`,
        };
      case 'delete-branch':
        await git(homeCtx, ['branch', '-q', '-D', g.branch], { allowFailure: true });
        return undefined;
      case 'forget-user-bytes':
        // From the user's work tree: the run's worktree (where `g` works) may be gone by now.
        await forgetUserBytes({ ...g, ctx: homeCtx });
        return undefined;
    }
  };
  await runSteps(journal, HOME_CLEANUP_STEPS, run, steps.observe);
  const kept = journal.dataOf('remove-worktree');
  return { notice: typeof kept === 'string' ? kept : null, journal };
}

/** The user's work tree a run in a worktree of its own started from, and git there. */
export function homeWorkTree(
  g: RunGit,
  state: RunState,
): { home: RunHome; homeRepo: RepoLocation; homeCtx: GitContext; engine: EngineOptions } {
  const home = requireHome(state);
  // The run's own engine options, for git in the other work trees of the repository.
  const { timeoutMs, baseEnv, env, signal } = g.ctx;
  const engine: EngineOptions = {
    timeoutMs,
    baseEnv,
    ...(env ? { env } : {}),
    ...(signal ? { signal } : {}),
  };
  const homeRepo: RepoLocation = {
    root: home.root,
    gitDir: home.gitDir,
    gitCommonDir: g.repo.gitCommonDir,
  };
  return { home, homeRepo, homeCtx: engineContext(homeRepo, engine), engine };
}

/**
 * The run's work into the user's work tree: their tree as it is now (a snapshot with the run's
 * start as its parent) merged with the checkpoint, the difference written into their files only.
 * Run again after a crash, the merge gives no difference once the work is home. A collision (or a
 * file changed under the apply) stops it with nothing of theirs touched and the run still
 * recorded, its step forgotten, so that `finish --cleanup` or `finish --keep` ends it later.
 */
async function applyHome(at: {
  g: RunGit;
  state: RunState;
  home: RunHome;
  homeCtx: GitContext;
  homeRepo: RepoLocation;
  checkpoint: string;
  base: string;
  steps: HomeCleanupSteps;
}): Promise<void> {
  const { g, state, home, homeCtx, homeRepo, checkpoint, base, steps } = at;
  const ours = await commitTree(
    homeCtx,
    await snapshotHome(homeCtx, homeRepo, g.paths.dir),
    [base],
    'ralphtool: your work tree',
    'could not save a snapshot of your work tree',
  );
  const merged = await mergeTree(homeCtx, ours, checkpoint);
  if (!merged.clean) {
    await steps.recordStep(null);
    throw new HomeCollision(collision(state, home, merged.files), merged.files);
  }
  // Nothing to write when the work is there already (a cleanup interrupted after its apply).
  if (merged.tree === (await treeOf(homeCtx, ours))) return;
  const apply = { from: ours, to: merged.tree, scratchDir: g.paths.dir };
  const result = await applyTreeDifference(homeCtx, apply);
  if (!result.applied) {
    await steps.recordStep(null);
    throw new RuntimeError(
      `files in ${home.root} changed while the work of ${state.branch} was being brought there (${result.reason}): nothing was applied; run \`ralphtool finish ${state.change} --cleanup\` again`,
    );
  }
}

/**
 * The user's work tree must be on the branch the run started from (the work goes back where it
 * came from) with no merge or rebase half-way: otherwise nothing is done.
 */
export async function assertHomeReady(
  ctx: GitContext,
  repo: RepoLocation,
  state: RunState,
): Promise<void> {
  const change = state.change;
  const later = `then \`ralphtool finish ${change} --cleanup\` (or keep the work on ${state.branch}: \`ralphtool finish ${change} --keep\`)`;
  if (!existsSync(repo.root) || !existsSync(repo.gitDir)) {
    throw new UsageError(
      `your work tree ${repo.root}, where the run of ${change} started, is gone: the work stays on ${state.branch} (\`ralphtool finish ${change} --keep\`)`,
    );
  }
  const head = await headPosition(ctx);
  if (!sameBranch(head, state.originalBranch)) {
    const started = originalLabel(state);
    throw new UsageError(
      `your work tree ${repo.root} is on ${headLabel(head)}, not on ${started} where the run of ${change} started, so its work is not brought there: switch back (\`git switch ${started}\`), ${later}`,
    );
  }
  const operation = await operationInProgress(repo.gitDir);
  if (operation !== null) {
    throw new UsageError(
      `a ${operation} is in progress in your work tree ${repo.root}: finish or abort it (\`git ${operation} --abort\`), ${later}`,
    );
  }
}

function collision(state: RunState, home: RunHome, files: readonly string[]): string {
  const shown = files.slice(0, FILES_SHOWN).join(', ');
  const more = files.length > FILES_SHOWN ? ` and ${String(files.length - FILES_SHOWN)} more` : '';
  return `the work of ${state.branch} collides with your changes in ${home.root} (${shown}${more}): nothing was applied and the run stays recorded; to merge by hand, commit or stash your changes, \`git merge --squash ${state.branch}\`, resolve, then \`ralphtool finish ${state.change} --keep\``;
}

function sameBranch(head: HeadPosition, original: RunState['originalBranch']): boolean {
  if (original.kind === 'detached') return head.kind === 'detached';
  return head.kind !== 'detached' && head.name === original.name;
}

function headLabel(head: HeadPosition): string {
  return head.kind === 'detached' ? `a detached HEAD (${head.sha.slice(0, 12)})` : head.name;
}

function originalLabel(state: RunState): string {
  const original = state.originalBranch;
  return original.kind === 'detached' ? original.sha.slice(0, 12) : original.name;
}

function requireHome(state: RunState): RunHome {
  if (!state.home) throw new RuntimeError(`the run of ${state.change} has no home work tree`);
  return state.home;
}

function requireSha(sha: string | null, state: RunState): string {
  if (sha === null) {
    throw new RuntimeError(
      `the start of ${state.change} was interrupted: run \`ralphtool resume ${state.change}\``,
    );
  }
  return sha;
}
