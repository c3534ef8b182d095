import { commitTree } from '../git/commit.js';
import { mergeTree } from '../git/merge-tree.js';
import { resolveCommit } from '../git/repo.js';
import { resetHard, treeWithFile } from '../git/tree-edit.js';
import { pinCheckpoint } from './checkpoint-pin.js';
import { assertHomeReady, homeWorkTree } from './home-cleanup.js';
import { snapshotHome } from './home-snapshot.js';
import { Journal, runSteps, type StepObserver } from './journal.js';
import { RESOLVE_STEPS, UNRESOLVE_STEPS } from './plans.js';
import type { RunGit } from './run-git.js';
import type { RunState } from './state.js';

/** The conflicts the agent is resolving, as the run's record keeps them (state.ts `resolve`). */
export type ResolveRecord = NonNullable<RunState['resolve']>;

/** What the loop asks for: the story's id and tasks.md (its path in the repository) with it. */
export interface ResolveRequest {
  storyId: string;
  /** tasks.md's path relative to the repository's root (forward slashes). */
  tasksPath: string;
  /** tasks.md as the checkpoint has it, the story appended, for these colliding files. */
  tasksText: (files: readonly string[]) => Promise<string>;
}

/** What the resolve sequence needs from the recorded run. */
export interface ResolveSteps {
  /** Puts the run's worktree at its checkpoint (saving a half-done attempt). */
  atCheckpoint: () => Promise<void>;
  /** Records (the resolve, with its story) or forgets (null) the step in the run's state. */
  recordStep: (storyId: string | null) => Promise<void>;
  observe?: StepObserver | undefined;
}

const JOURNAL = 'resolve';
const MESSAGE = 'ralphtool: your work tree';

/**
 * `--resolve-conflicts` (docs/git-protocol.md, "Bringing a colliding change home"): the run's
 * branch moved onto the user's work tree as it is now, the conflicts left in the files for the
 * agent. Before anything is recorded, all in memory: their tree as a commit H (parents: their
 * HEAD and the run's start, as the merge check makes it), `git merge-tree --write-tree` of the
 * checkpoint and H (a tree with conflict markers), tasks.md replaced by the checkpoint's with
 * the story appended, committed as T (parents: the checkpoint and H). Null when nothing collides
 * any more (the user changed their files since): the cleanup can simply run again. Then, as a
 * journal (`RESOLVE_STEPS`): `resolve-commit` (T, H and the files recorded), `move-branch` (the
 * worktree's branch, index and files at T), `pin`. The caller's state write (checkpoint T, the
 * resolve record) ends the sequence.
 */
export async function beginResolve(
  g: RunGit,
  state: RunState,
  req: ResolveRequest,
  steps: ResolveSteps,
): Promise<{ record: ResolveRecord; checkpoint: string; journal: Journal } | null> {
  const { homeRepo, homeCtx } = homeWorkTree(g, state);
  await assertHomeReady(homeCtx, homeRepo, state);
  await steps.atCheckpoint();
  const from = requireSha(state.checkpointSha);
  const base = state.resolve?.home ?? requireSha(state.baseSha);
  const head = await resolveCommit(homeCtx, 'HEAD');
  const tree = await snapshotHome(homeCtx, homeRepo, g.paths.dir);
  const parents = [...new Set([head, base].filter((sha): sha is string => sha !== null))];
  const home = await commitTree(homeCtx, tree, parents, MESSAGE, 'could not save your work tree');
  const merged = await mergeTree(g.ctx, from, home);
  if (merged.clean) return null;
  const files = merged.files;
  const withStory = await treeWithFile(
    g.ctx,
    merged.tree,
    req.tasksPath,
    await req.tasksText(files),
    g.paths.dir,
  );
  const commit = await commitTree(
    g.ctx,
    withStory,
    [from, home],
    `ralphtool: bring ${g.branch} onto your work tree\n\nStory ${req.storyId}; conflicts in:\n${files.map((f) => `  ${f}`).join('\n')}\n`,
    'could not bring the branch onto your work tree',
  );
  await steps.recordStep(req.storyId);
  const journal = await Journal.open(g.paths.journal, JOURNAL, false);
  const record: ResolveRecord = { storyId: req.storyId, from, home, files };
  await runSteps(
    journal,
    RESOLVE_STEPS,
    async (name) => {
      if (name === 'resolve-commit') return { data: { ...record, commit } };
      if (name === 'move-branch') await moveBranch(g, commit);
      else await pinCheckpoint(g, commit);
      return undefined;
    },
    steps.observe,
  );
  return { record, checkpoint: commit, journal };
}

/**
 * A resolve a crash interrupted: finished from its journal once T was recorded (the branch may
 * have moved), else forgotten (nothing but unreachable objects was written: the next end of the
 * loop tries the cleanup again). Null when forgotten.
 */
export async function finishResolve(
  g: RunGit,
  observe: StepObserver | undefined,
): Promise<{ record: ResolveRecord; checkpoint: string; journal: Journal } | null> {
  const journal = await Journal.open(g.paths.journal, JOURNAL, true);
  const data = journal.dataOf('resolve-commit') as (ResolveRecord & { commit: string }) | undefined;
  if (data === undefined || (await resolveCommit(g.ctx, data.commit)) === null) {
    journal.close();
    return null;
  }
  const { commit, ...record } = data;
  await runSteps(
    journal,
    RESOLVE_STEPS,
    async (name) => {
      if (name === 'move-branch') await moveBranch(g, commit);
      else if (name === 'pin') await pinCheckpoint(g, commit);
      return undefined;
    },
    observe,
  );
  return { record, checkpoint: commit, journal };
}

/**
 * The resolve story not done (its attempts used up, a budget, a stop): the branch, the worktree
 * and the pin back at the checkpoint before it (`UNRESOLVE_STEPS`, each safe to run again; the
 * caller's state write ends it). The work is kept on the branch as it was.
 */
export async function undoResolve(
  g: RunGit,
  record: ResolveRecord,
  resumed: boolean,
  observe: StepObserver | undefined,
): Promise<Journal> {
  const journal = await Journal.open(g.paths.journal, 'unresolve', resumed);
  await runSteps(
    journal,
    UNRESOLVE_STEPS,
    async (name) => {
      if (name === 'branch-back') await moveBranch(g, record.from);
      else await pinCheckpoint(g, record.from);
      return undefined;
    },
    observe,
  );
  return journal;
}

/** The worktree's HEAD branch (`ralph/<change>`), index and tracked files at `commit`. */
async function moveBranch(g: RunGit, commit: string): Promise<void> {
  await resetHard(g.ctx, commit, `could not move ${g.branch}`);
}

function requireSha(sha: string | null): string {
  if (sha === null) throw new Error('the run has no checkpoint yet');
  return sha;
}
