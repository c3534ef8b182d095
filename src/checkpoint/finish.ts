import { RuntimeError } from '../core/errors.js';
import type { RunState } from './state.js';
import { git } from '../git/git.js';
import { branchSha, headPosition, treeOf } from '../git/repo.js';
import { indexFile } from './run-git.js';
import type { RunGit } from './run-git.js';
import { snapshotWorkTree } from '../git/snapshot.js';
import { atOriginal } from './start-sequence.js';
import { forgetUserBytes, restoreStagedChanges, restoreUserBytes } from './user-files.js';
import type { Journal, StepOutcome } from './journal.js';
import type { CleanupStep } from './plans.js';
import { setAsideLateWrites } from './late-writes.js';
import { bringShelteredBack, forgetShelter, shelterUntrackedFiles } from './untracked-shelter.js';

/**
 * The git steps of "Cleanup" (docs/git-protocol.md; plans.ts, `CLEANUP_STEPS`): back to the
 * original position with the run's work (and the user's own uncommitted changes from the start)
 * as unstaged changes, and the run's branch deleted. The caller has put the tree at the
 * checkpoint. Each step is safe to run again: run again after a crash, a step looks at where git
 * is (already on the original branch, the work squashed already, files written since) before it
 * acts. What the user must be told (files written since an interruption set aside, staged
 * versions that could not be staged again, sheltered files that could not go back) is kept in
 * the journal with the step that found it.
 */
export class CleanupGitSteps {
  /** The run branch's tip when the cleanup began (null: deleted by a cleanup before a crash). */
  private tip: string | null = null;

  private constructor(
    private readonly g: RunGit,
    private readonly state: RunState,
  ) {}

  /**
   * The steps of this cleanup, once what they stand on is known: refused when the run's branch
   * is gone and the cleanup had not got as far as deleting it.
   */
  static async begin(g: RunGit, state: RunState, resumed: boolean): Promise<CleanupGitSteps> {
    const steps = new CleanupGitSteps(g, state);
    steps.tip = await branchSha(g.ctx, g.branch);
    if (steps.tip === null && !(resumed && atOriginal(await headPosition(g.ctx), state))) {
      throw new RuntimeError(
        `branch ${g.branch} no longer exists, so the run's work cannot be brought back: look for it with \`git reflog\``,
      );
    }
    return steps;
  }

  /** Whether the original branch has no commit (nothing to check out or squash onto). */
  async unbornOriginal(): Promise<boolean> {
    const original = this.state.originalBranch;
    return original.kind === 'unborn' && (await branchSha(this.g.ctx, original.name)) === null;
  }

  async run(step: CleanupStep, again: boolean): Promise<StepOutcome | undefined> {
    const { g, state, tip } = this;
    // The branch is gone: the cleanup deleted it before a crash, and what needs it is done.
    if (tip === null) {
      if (step === 'bring-sheltered-back') return { data: await bringShelteredBack(g) };
      if (step === 'forget-shelter') await forgetShelter(g);
      if (step === 'forget-user-bytes') await forgetUserBytes(g);
      return undefined;
    }
    switch (step) {
      case 'shelter-untracked': {
        const target = await originalTarget(g, state);
        if (target !== null) await shelterUntrackedFiles(g, tip, target);
        return undefined;
      }
      case 'checkout-original':
        if (again && atOriginal(await headPosition(g.ctx), state)) return undefined;
        await this.guarded(() => checkoutOriginal(g, state));
        return undefined;
      case 'squash':
        return { data: await this.guarded(() => this.squash(again, tip)) };
      case 'to-unborn-original':
        await toUnbornOriginal(g, state);
        return undefined;
      case 'user-bytes':
        // The squash wrote the files through git's filters: their exact bytes go back.
        await restoreUserBytes(g, state.baseSha, tip);
        return undefined;
      case 'staged-changes': {
        // The squash unstaged everything: the staged versions of the user's own files go back.
        const notice = state.baseSha
          ? await restoreStagedChanges(g, { startSha: state.originalSha, base: state.baseSha, tip })
          : null;
        return { data: notice };
      }
      case 'delete-branch':
        await git(g.ctx, ['branch', '-q', '-D', g.branch], {
          context: `could not delete ${g.branch}`,
        });
        return undefined;
      case 'bring-sheltered-back':
        // Last: back before the branch went, a resumed cleanup would take them for late writes.
        return { data: await bringShelteredBack(g) };
      case 'forget-shelter':
        await forgetShelter(g);
        return undefined;
      case 'forget-user-bytes':
        await forgetUserBytes(g);
        return undefined;
    }
  }

  /**
   * The squash; run again, at the original position, it looks first: still to do when the
   * files are exactly the original commit's, done when they are the run branch's; anything else
   * was written since and is set aside under a ref (its name returned for the notice), then the
   * squash is made.
   */
  private async squash(again: boolean, tip: string): Promise<string | null> {
    if (!again) {
      await squash(this.g);
      return null;
    }
    const needed = await needsSquash(this.g, tip);
    if (needed === false) {
      await git(this.g.ctx, ['reset', '-q'], { context: 'could not unstage the changes' });
      return null;
    }
    await squash(this.g);
    return typeof needed === 'string'
      ? `files written since the cleanup was interrupted were set aside under ${needed} (\`git show --stat ${needed}\` lists them)`
      : null;
  }

  /** A checkout or squash that fails puts the sheltered files back for whatever comes next. */
  private async guarded<T>(act: () => Promise<T>): Promise<T> {
    try {
      return await act();
    } catch (error) {
      // Back in place for whatever the user does next (a later cleanup shelters them again).
      await bringShelteredBack(this.g);
      await forgetShelter(this.g);
      throw error;
    }
  }
}

/** What a cleanup's steps found that the user must be told, from their journal lines. */
export function cleanupNotice(journal: Journal): string | null {
  const notices = (['squash', 'staged-changes', 'bring-sheltered-back'] as const)
    .map((step) => journal.dataOf(step))
    .filter((n): n is string => typeof n === 'string');
  return notices.length > 0 ? notices.join('; ') : null;
}

/** The commit the cleanup checks out: the original branch's tip now, or the detached start. */
async function originalTarget(g: RunGit, state: RunState): Promise<string | null> {
  const original = state.originalBranch;
  return original.kind === 'detached' ? original.sha : branchSha(g.ctx, original.name);
}

async function checkoutOriginal(g: RunGit, state: RunState): Promise<void> {
  const original = state.originalBranch;
  if (original.kind === 'detached') {
    await git(g.ctx, ['checkout', '-q', '--detach', original.sha, '--'], {
      context: `could not go back to ${original.sha}`,
    });
    return;
  }
  if ((await branchSha(g.ctx, original.name)) === null) {
    throw new RuntimeError(
      `your original branch ${original.name} no longer exists: recreate it (\`git branch ${original.name} ${state.originalSha ?? '<commit>'}\`) and run \`ralphtool finish ${g.change} --cleanup\` again`,
    );
  }
  await git(g.ctx, ['checkout', '-q', original.name, '--'], {
    context: `could not go back to ${original.name}`,
  });
}

/** Brings the run's work over as changes, then unstages everything (`git reset`). */
async function squash(g: RunGit): Promise<void> {
  try {
    // --ff overrides merge.ff=false / mergeOptions, which git refuses to combine with --squash.
    await git(g.ctx, ['merge', '-q', '--squash', '--ff', '--no-stat', g.branch], {
      context: `could not bring the work of ${g.branch} back`,
    });
  } catch (error) {
    const conflicts = await conflictedFiles(g);
    if (conflicts.length === 0) throw error;
    // The original branch moved on since the start (the user committed there): only a person
    // can merge that. Everything is still on the run's branch, so nothing is lost meanwhile.
    const shown = conflicts.slice(0, 3).join(', ') + (conflicts.length > 3 ? ', …' : '');
    throw new RuntimeError(
      `the work of ${g.branch} conflicts with what your branch got since the run started (${shown}): resolve the conflicts (\`git status\` lists them), then \`git reset\` and \`git branch -D ${g.branch}\`, and \`ralphtool finish ${g.change} --cleanup\` marks the run finished`,
    );
  }
  await git(g.ctx, ['reset', '-q'], { context: 'could not unstage the changes' });
}

async function conflictedFiles(g: RunGit): Promise<string[]> {
  const out = await git(g.ctx, ['diff', '--name-only', '--diff-filter=U', '-z'], {
    allowFailure: true,
  });
  return out.stdout.split('\0').filter((file) => file !== '');
}

/**
 * After an interrupted cleanup, at the original position: the squash is still to do when the
 * files are exactly the original commit's; it is done (false) when they are the run branch's.
 * Anything else was written since: it is set aside under a ref (returned), then squashed.
 */
async function needsSquash(g: RunGit, tip: string): Promise<boolean | string> {
  const { ctx, repo } = g;
  const headTree = await treeOf(ctx, 'HEAD');
  const files = await snapshotWorkTree(ctx, {
    scratchDir: g.paths.dir,
    startIndex: indexFile(repo),
    baseTree: headTree,
  });
  if (files === (await treeOf(ctx, tip))) return false;
  if (files === headTree) return true;
  return setAsideLateWrites(g, files, tip);
}

/**
 * An original branch without commits cannot receive a squash: HEAD goes back to its name and
 * the index is emptied, so the run's files stay in place as untracked changes.
 */
async function toUnbornOriginal(g: RunGit, state: RunState): Promise<void> {
  if (state.originalBranch.kind !== 'unborn') return;
  await git(g.ctx, [
    'symbolic-ref',
    '-m',
    'ralphtool: cleanup',
    'HEAD',
    `refs/heads/${state.originalBranch.name}`,
  ]);
  await git(g.ctx, ['read-tree', '--empty'], { context: 'could not unstage the files' });
}
