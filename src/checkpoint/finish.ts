import { RuntimeError } from '../core/errors.js';
import type { RunState } from './state.js';
import { git } from '../git/git.js';
import { branchSha, headPosition, treeOf } from '../git/repo.js';
import { indexFile } from './run-git.js';
import type { RunGit } from './run-git.js';
import { snapshotWorkTree } from '../git/snapshot.js';
import { atOriginal } from './start-sequence.js';
import { restoreStagedChanges, restoreUserBytes } from './user-files.js';
import { setAsideLateWrites } from './late-writes.js';
import { bringShelteredBack, shelterUntrackedFiles } from './untracked-shelter.js';

/**
 * "Cleanup" of the git protocol (docs/git-protocol.md): back to the original position with the run's work (and the
 * user's own uncommitted changes from the start) as unstaged changes, and the run's branch
 * deleted. The caller has put the tree at the checkpoint. With `resuming`, carries on after
 * an interruption from whichever step was reached. Returns what the user must be told, if
 * anything: where files written since an interruption were set aside, staged versions that
 * could not be staged again.
 */
export async function returnToOriginal(
  g: RunGit,
  state: RunState,
  resuming: boolean,
): Promise<string | null> {
  const { ctx } = g;
  const tip = await branchSha(ctx, g.branch);
  const head = await headPosition(ctx);
  const already = resuming && atOriginal(head, state);
  if (!tip) {
    // The last step (deleting the branch) was done, by ralphtool or by hand after a conflict.
    if (already) return bringShelteredBack(g);
    throw new RuntimeError(
      `branch ${g.branch} no longer exists, so the run's work cannot be brought back: look for it with \`git reflog\``,
    );
  }
  const unborn =
    state.originalBranch.kind === 'unborn' &&
    (await branchSha(ctx, state.originalBranch.name)) === null;
  let late: boolean | string = false;
  if (unborn) {
    await toUnbornOriginal(g, state);
  } else if (!already) {
    const target = await originalTarget(g, state);
    if (target !== null) await shelterUntrackedFiles(g, tip, target);
    try {
      await checkoutOriginal(g, state);
      await squash(g);
    } catch (error) {
      // Back in place for whatever the user does next (a later cleanup shelters them again).
      await bringShelteredBack(g);
      throw error;
    }
  } else if ((late = await needsSquash(g, tip))) {
    await squash(g);
  } else {
    await git(ctx, ['reset', '-q'], { context: 'could not unstage the changes' });
  }
  // The squash wrote the files through git's filters, and unstaged everything: the exact bytes
  // and the staged versions of the user's own files go back (both are idempotent).
  await restoreUserBytes(g, state.baseSha, tip);
  const notice = state.baseSha
    ? await restoreStagedChanges(g, { startSha: state.originalSha, base: state.baseSha, tip })
    : null;
  await git(ctx, ['branch', '-q', '-D', g.branch], { context: `could not delete ${g.branch}` });
  // Last: back before the branch went, a resumed cleanup would take them for late writes.
  const sheltered = await bringShelteredBack(g);
  const notices = [
    typeof late === 'string'
      ? `files written since the cleanup was interrupted were set aside under ${late} (\`git show --stat ${late}\` lists them)`
      : null,
    notice,
    sheltered,
  ].filter((n): n is string => n !== null);
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
