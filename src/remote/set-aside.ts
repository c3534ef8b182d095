import { existsSync } from 'node:fs';
import { mkdir, readdir, rename } from 'node:fs/promises';
import { join } from 'node:path';
import { UsageError } from '../core/errors.js';
import {
  forcedRefPrefix,
  progressRef,
  ralphBranch,
  saveBeforeForce,
  type RunPaths,
  type RunState,
} from '../checkpoint/index.js';
import { git, gitOut, type GitContext } from '../git/git.js';
import { branchSha, isAncestor, resolveCommit } from '../git/repo.js';
import { fetchRemoteBranch } from './remote-view.js';

// Nothing of this machine is dropped when the remote's copy of a run wins (docs/contract.md, "The
// remote is the truth"): this machine's branch, attempts and progress save go under one
// `refs/ralphtool/<change>/forced/<ms>/` prefix (like `run --force`'s save), its run folder into
// a folder beside the new one, the run's uncommitted changes into a named git stash.

/** Fetches the remote's `ralph/<change>` under a new `forced/<ms>/remote-branch` ref; null when gone. */
export async function saveRemoteBranch(
  ctx: GitContext,
  remote: string,
  change: string,
): Promise<string | null> {
  const ref = `${forcedRefPrefix(change, Date.now())}remote-branch`;
  return (await fetchRemoteBranch(ctx, remote, change, ref)) ? ref : null;
}

/** Where this machine's copy of a run went: one line per place, for the user. */
export type SetAsideNotes = string[];

/**
 * Checks this machine's copy of the run can be set aside without touching anything of the
 * user's: its own worktree's changes and the work tree's (when on the run's branch) are the
 * run's, anything else uncommitted is the user's and a refusal (exit 2, nothing changed).
 */
export async function assertCanSetAside(
  ctx: GitContext,
  change: string,
  command: 'resume' | 'finish',
): Promise<void> {
  const head = await git(ctx, ['symbolic-ref', '-q', 'HEAD'], { allowFailure: true });
  if (head.stdout.trim() === `refs/heads/${ralphBranch(change)}`) return;
  const status = await gitOut(ctx, ['status', '--porcelain', '--untracked-files=normal']);
  if (status === '') return;
  const first = status.split('\n')[0]?.slice(3) ?? '';
  throw new UsageError(
    `this work tree has uncommitted changes (${first}${status.includes('\n') ? ', …' : ''}) and is not on ${ralphBranch(change)}: commit or stash them, then run \`ralphtool ${command} ${change} --from …\` again`,
  );
}

/**
 * Sets this machine's copy of the run aside (its state says where it ran): the run's uncommitted
 * changes stashed, its branch's checkout let go, its refs moved under a `forced/` prefix, its run
 * folder (all but the lock this process holds) moved to `set-aside-<ms>/` inside it.
 */
export async function setAsideLocalCopy(
  ctx: GitContext,
  change: string,
  local: RunState,
  paths: RunPaths,
): Promise<SetAsideNotes> {
  const notes: SetAsideNotes = [];
  const branch = ralphBranch(change);
  const stamp = new Date().toISOString();
  // Where the copy ran (its own worktree, or another worktree of this repository) and here.
  const recordedRoot = local.worktree?.root ?? null;
  const places = [
    ...(recordedRoot !== null && recordedRoot !== ctx.cwd
      ? [{ root: recordedRoot, own: local.home !== undefined }]
      : []),
    { root: ctx.cwd, own: false },
  ];
  for (const place of places) {
    if (!existsSync(place.root)) continue;
    const here = { ...ctx, cwd: place.root };
    const head = await git(here, ['symbolic-ref', '-q', 'HEAD'], { allowFailure: true });
    if (head.stdout.trim() !== `refs/heads/${branch}`) continue;
    const dirty = await gitOut(here, ['status', '--porcelain', '--untracked-files=normal']);
    if (dirty !== '') {
      const message = `ralphtool: ${change}, this machine's copy set aside ${stamp}`;
      await git(here, ['stash', 'push', '--include-untracked', '--quiet', '-m', message], {
        context: `could not stash the run's uncommitted changes in ${place.root}`,
      });
      notes.push(
        `the uncommitted changes of this machine's copy in ${place.root} are stashed as "${message}" (\`git stash list\`)`,
      );
    }
    // The branch is let go so that the remote's can replace it (a checked-out branch cannot be).
    await git(here, ['switch', '--quiet', '--detach'], {
      context: `could not let go of ${branch} in ${place.root}`,
    });
    if (place.own || place.root !== ctx.cwd) {
      notes.push(
        `the worktree ${place.root} of this machine's copy stays, detached${place.own ? ` (\`git worktree remove ${place.root}\` once you no longer need it)` : ''}`,
      );
    }
  }
  const tip = await branchSha(ctx, branch);
  const prefix = forcedRefPrefix(change, Date.now());
  if (tip !== null) {
    const saved = await saveBeforeForce(ctx, change, tip, prefix);
    notes.push(
      `this machine's ${branch} (at ${tip.slice(0, 12)}) and ${saved.attemptRefs} attempt ref(s) are saved under ${saved.prefix}`,
    );
  }
  const progress = await resolveCommit(ctx, progressRef(change));
  if (progress !== null) {
    await git(ctx, ['update-ref', `${prefix}progress`, progress], {
      context: 'could not save the progress of this machine’s copy',
    });
    await git(ctx, ['update-ref', '-d', progressRef(change), progress], {
      context: 'could not save the progress of this machine’s copy',
    });
  }
  const folder = join(paths.dir, `set-aside-${String(Date.now())}`);
  await mkdir(folder, { recursive: true });
  for (const name of await readdir(paths.dir)) {
    if (name === 'lock' || name.startsWith('set-aside-')) continue;
    await rename(join(paths.dir, name), join(folder, name));
  }
  notes.push(`this machine's run folder of ${change} is kept in ${folder}`);
  return notes;
}

/**
 * Without a run recorded here, a `ralph/<change>` this repository has is about to be replaced by
 * the remote's: saved first (with any attempt refs) unless the remote's branch already holds it,
 * and let go of when it is checked out here.
 */
export async function keepLocalBranch(
  ctx: GitContext,
  change: string,
  remoteTip: string | null,
): Promise<SetAsideNotes> {
  const branch = ralphBranch(change);
  const tip = await branchSha(ctx, branch);
  if (tip === null) return [];
  const notes: SetAsideNotes = [];
  const contained =
    remoteTip !== null &&
    (await resolveCommit(ctx, remoteTip)) !== null &&
    (await isAncestor(ctx, tip, remoteTip));
  if (!contained) {
    const saved = await saveBeforeForce(ctx, change, tip);
    notes.push(
      `this repository's ${branch} (at ${tip.slice(0, 12)}) is not on the remote's: saved under ${saved.prefix} before the remote's replaces it`,
    );
  }
  const head = await git(ctx, ['symbolic-ref', '-q', 'HEAD'], { allowFailure: true });
  if (head.stdout.trim() === `refs/heads/${branch}`) {
    await git(ctx, ['switch', '--quiet', '--detach'], { context: `could not let go of ${branch}` });
  }
  return notes;
}
