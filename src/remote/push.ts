import { branchSha } from '../git/repo.js';
import { pushRefs, type PushResult, type PushUpdate } from '../git/remote.js';
import type { GitContext } from '../git/git.js';
import { progressRef, progressSubject, ralphBranch } from '../checkpoint/index.js';
import { git } from '../git/git.js';
import { claimRef, runRefspecs } from './names.js';
import { readPushedTip, rememberPushedTip } from './remote-view.js';
import type { RunRefs } from './run-refs.js';

/**
 * Pushes the run's refs (the branch at `branchAt`, the attempt refs, the record) to the remote
 * in one atomic push. The branch is pushed at the checkpoint the record names, not at whatever
 * the local branch is at that moment, so the remote's branch and record always agree (an accept
 * may move the local branch between the record's writing and the push). The branch moves only
 * from the tip this machine last pushed (a compare-and-swap: a keep or `run --force` may move it
 * off what the remote has, but a commit someone else put there is never pushed over); the
 * attempt refs and the record are forced, since while the change's claim is held they are this
 * machine's alone. The tip pushed is remembered for the next push (remote-view.ts).
 */
export async function pushRun(
  ctx: GitContext,
  remote: string,
  change: string,
  at: {
    branchAt: string | null;
    claimSha?: string;
    /** The attempt in progress's save: pushed (a commit), deleted on the remote (`delete`), or left. */
    progress?: { push: string } | 'delete' | null;
    /** Exactly these attempt refs (the others stay here); absent: every one. */
    attempts?: readonly string[];
    /** The run's refs as read just before (run-refs.ts); absent: read here. */
    refs?: RunRefs;
    /** The run's last push: the claim (`claimSha`) is deleted in it, leased, instead of kept. */
    releaseClaim?: boolean;
  },
): Promise<PushResult> {
  const branch = `refs/heads/${ralphBranch(change)}`;
  const here = at.refs === undefined ? await branchSha(ctx, ralphBranch(change)) : at.refs.branch;
  const withBranch = at.branchAt !== null && here !== null;
  const updates: PushUpdate[] = runRefspecs(change, false, at.attempts).map((spec) => ({
    ...spec,
    force: true,
  }));
  let tip: string | null = null;
  if (withBranch && at.branchAt !== null) {
    tip = at.refs === undefined ? await readPushedTip(ctx, remote, change) : at.refs.pushedTip;
    updates.unshift({ src: at.branchAt, dst: branch, force: true, expect: tip ?? '' });
  }
  if (at.progress === 'delete') updates.push({ src: '', dst: progressRef(change) });
  else if (at.progress != null) {
    updates.push({ src: at.progress.push, dst: progressRef(change), force: true });
  }
  // The claim rides along unchanged, leased: if another machine took it over, the atomic push
  // refuses every ref, so a machine that lost its claim can never overwrite the run's refs. The
  // run's last push deletes it, leased the same way: the run's end and the release are one step.
  if (at.claimSha !== undefined) {
    updates.push({
      src: at.releaseClaim === true ? '' : at.claimSha,
      dst: claimRef(change),
      force: true,
      expect: at.claimSha,
    });
  }
  const pushed = await pushRefs(ctx, remote, updates);
  // The tip is remembered when it moved (a push that leaves the branch where it was writes nothing).
  if (pushed.ok && withBranch && at.branchAt !== null && at.branchAt !== tip) {
    await rememberPushedTip(ctx, remote, change, at.branchAt);
  }
  return pushed;
}

/** Whether a push was refused because the remote's branch is not where this machine left it. */
export function branchMovedOnRemote(pushed: PushResult, change: string): boolean {
  const branch = `refs/heads/${ralphBranch(change)}`;
  return pushed.refs.some(
    (r) => r.flag === '!' && r.dst === branch && /stale info/.test(r.summary),
  );
}

/**
 * The progress save to push for this state: its commit while it is the save of the attempt the
 * state says is going on; otherwise it is stale (its attempt ended) and is forgotten here.
 */
export async function currentProgress(
  ctx: GitContext,
  change: string,
  state: { currentStory: string | null; currentAttempt: number | null },
  /** The progress ref as read just before (run-refs.ts); absent: read here. */
  known?: { sha: string; subject: string } | null,
): Promise<string | null> {
  const ref = progressRef(change);
  const save = known === undefined ? await readProgress(ctx, ref) : known;
  if (save === null) return null;
  const { sha, subject } = save;
  const running =
    state.currentStory !== null && state.currentAttempt !== null
      ? progressSubject(state.currentStory, state.currentAttempt)
      : null;
  if (running !== null && subject === running) return sha;
  await git(ctx, ['update-ref', '-d', ref, sha], { allowFailure: true });
  return null;
}

async function readProgress(
  ctx: GitContext,
  ref: string,
): Promise<{ sha: string; subject: string } | null> {
  const found = await git(ctx, ['log', '-1', '--format=%H %s', ref, '--'], { allowFailure: true });
  if (found.exitCode !== 0 || found.stdout.trim() === '') return null;
  const [sha = '', ...words] = found.stdout.trim().split(' ');
  return { sha, subject: words.join(' ') };
}
