import { findMergeOrder } from '../../core/merge-order.js';
import {
  engineContext,
  notInRepo,
  readRunState,
  runPaths,
  runsRoot,
  snapshotHome,
} from '../../checkpoint/index.js';
import { commitTree } from '../../git/commit.js';
import type { GitContext } from '../../git/git.js';
import { mergeTree } from '../../git/merge-tree.js';
import { branchSha, headPosition, locateRepo, resolveCommit } from '../../git/repo.js';
import type { MergeConflict, MergeReport } from './many-types.js';

export interface MergeCheckRequest {
  /** Inside the user's work tree (where the runs started). */
  cwd: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  /** The runs whose loops ended, in the order given; `branch` is `ralph/<change>`. */
  runs: readonly { change: string; branch: string }[];
}

/** A run's branch as the check sees it. */
interface Checked {
  change: string;
  /** The branch at its checkpoint. */
  tip: string;
  /** Its "initial state" commit; null when the run's state is gone. */
  base: string | null;
}

const MESSAGE = 'ralphtool: merge check';
const CONTEXT = 'could not check how the branches merge';

/**
 * The merge check at the end of several runs (docs/contract.md and docs/git-protocol.md, "The
 * merge check"): every
 * finished branch against every other and against the user's work tree as it is now, all in
 * memory (`git merge-tree --write-tree`, commits made with `commit-tree`): no work tree, index
 * or ref is touched. Branches with no story accepted are left out.
 */
export async function checkMerges(req: MergeCheckRequest): Promise<MergeReport> {
  const engine = { timeoutMs: req.timeoutMs, baseEnv: req.env };
  const repo = await locateRepo({ cwd: req.cwd, ...engine });
  if (!repo) throw notInRepo(req.cwd);
  const ctx = engineContext(repo, engine);
  const against = await branchLabel(ctx);

  const checked: Checked[] = [];
  for (const run of req.runs) {
    const tip = await branchSha(ctx, run.branch);
    if (tip === null) continue; // the run never started: nothing to apply
    const state = await readRunState(runPaths(repo.gitCommonDir, run.change).state);
    // A run bringing its branch onto the user's tree (--resolve-conflicts) merges from there.
    const base = state?.resolve?.home ?? state?.baseSha ?? null;
    const checkpoint =
      (state?.checkpointSha && (await resolveCommit(ctx, state.checkpointSha))) || tip;
    if (checkpoint === base) continue;
    checked.push({ change: run.change, tip: checkpoint, base });
  }

  const home = await homeCommit(
    ctx,
    await snapshotHome(ctx, repo, runsRoot(repo.gitCommonDir)),
    checked,
  );
  const conflicts: MergeConflict[] = [];
  for (const run of checked) {
    const merged = await mergeTree(ctx, home, run.tip);
    if (!merged.clean) conflicts.push({ a: run.change, b: against, files: merged.files });
  }
  for (const [i, one] of checked.entries()) {
    for (const other of checked.slice(i + 1)) {
      const merged = await mergeTree(ctx, one.tip, other.tip);
      if (!merged.clean) conflicts.push({ a: one.change, b: other.change, files: merged.files });
    }
  }

  const names = checked.map((run) => run.change);
  const order = conflicts.length > 0 ? null : await cumulativeOrder(ctx, home, checked);
  return { against, checked: names, conflicts, order };
}

/**
 * The user's work tree as a commit whose parents are their HEAD and every checked run's
 * "initial state": the merge base of it and a run's branch is then that run's own start, as in
 * the cleanup (checkpoint/home-cleanup.ts). A run starts from the user's HEAD plus the change's
 * folder as the user had it, committed or not; with HEAD alone as the base, a change folder the
 * user has not committed would be "added" on both sides with other tasks ticked, a conflict the
 * cleanup never meets. Commits the user made since, and their uncommitted work, are "ours".
 */
async function homeCommit(
  ctx: GitContext,
  tree: string,
  runs: readonly Checked[],
): Promise<string> {
  const head = await resolveCommit(ctx, 'HEAD');
  const parents = [head, ...runs.map((run) => run.base)].filter(
    (sha): sha is string => sha !== null,
  );
  return commitTree(ctx, tree, [...new Set(parents)], MESSAGE, CONTEXT);
}

/**
 * An order in which the branches apply one after the other onto the user's work tree. Each step
 * is a commit of the merged tree with both sides as parents, so that git finds the right base
 * for the next branch.
 */
async function cumulativeOrder(
  ctx: GitContext,
  home: string,
  runs: readonly Checked[],
): Promise<string[] | null> {
  const tips = new Map(runs.map((run) => [run.change, run.tip]));
  return findMergeOrder({
    items: runs.map((run) => run.change),
    start: home,
    apply: async (state, change) => {
      const tip = tips.get(change) ?? change;
      const merged = await mergeTree(ctx, state, tip);
      if (!merged.clean) return null;
      return commitTree(ctx, merged.tree, [state, tip], MESSAGE, CONTEXT);
    },
  });
}

/** How the report names the user's branch: its name, or the commit a detached HEAD is at. */
async function branchLabel(ctx: GitContext): Promise<string> {
  const head = await headPosition(ctx);
  return head.kind === 'detached' ? head.sha.slice(0, 12) : head.name;
}
