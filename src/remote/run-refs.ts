import { attemptRefPrefix, progressRef, ralphBranch } from '../checkpoint/index.js';
import { git, type GitContext } from '../git/git.js';
import { refsOnDisk } from '../git/on-disk.js';
import { pushedTipRef, recordRef } from './names.js';

// What a push of the run's refs reads first (remote/push.ts, run/remote/remote-sync.ts): the
// run's branch, the tip this machine last pushed, the progress save, the saved attempts and the
// record — from the git directory's files when they tell (git/on-disk.ts), else with one
// `for-each-ref`, instead of a git process each: a run that pushes pushes every story or few.

export interface RunRefs {
  /** `ralph/<change>`'s commit here; null when the branch is gone (a cleanup deleted it). */
  branch: string | null;
  /** The tip of `ralph/<change>` this machine last pushed to (or fetched from) the remote. */
  pushedTip: string | null;
  /** `refs/ralphtool/<change>/progress`: its commit and subject; null when there is none. */
  progress: { sha: string; subject: string } | null;
  /** The saved attempts: full ref name → commit. */
  attempts: Map<string, string>;
  /** `refs/ralphtool/<change>/record` here (the next record's parent); null when none. */
  record: string | null;
}

export async function readRunRefs(
  ctx: GitContext,
  remote: string,
  change: string,
  /** The repository's git common dir: the refs are read from its files when they tell. */
  commonDir?: string,
): Promise<RunRefs> {
  const branchRef = `refs/heads/${ralphBranch(change)}`;
  const tipRef = pushedTipRef(remote, change);
  const progress = progressRef(change);
  const attemptsPrefix = attemptRefPrefix(change);
  const record = recordRef(change);
  const onDisk =
    commonDir === undefined
      ? undefined
      : await refsOnDisk(commonDir, [branchRef, tipRef, progress, record], [attemptsPrefix]);
  // A progress save's subject takes git to read (it exists only while a heartbeat saved one).
  if (onDisk !== undefined && !onDisk.has(progress)) {
    const attempts = new Map<string, string>();
    for (const [name, sha] of onDisk) if (name.startsWith(attemptsPrefix)) attempts.set(name, sha);
    return {
      branch: onDisk.get(branchRef) ?? null,
      pushedTip: onDisk.get(tipRef) ?? null,
      progress: null,
      attempts,
      record: onDisk.get(record) ?? null,
    };
  }
  const out = await git(ctx, [
    'for-each-ref',
    '--format=%(refname) %(objectname) %(subject)',
    branchRef,
    tipRef,
    progress,
    attemptsPrefix,
    record,
  ]);
  const refs: RunRefs = {
    branch: null,
    pushedTip: null,
    progress: null,
    attempts: new Map(),
    record: null,
  };
  for (const line of out.stdout.split('\n')) {
    const [name = '', sha = '', ...words] = line.split(' ');
    if (sha === '') continue;
    if (name === branchRef) refs.branch = sha;
    else if (name === tipRef) refs.pushedTip = sha;
    else if (name === progress) refs.progress = { sha, subject: words.join(' ') };
    else if (name === record) refs.record = sha;
    else if (name.startsWith(attemptsPrefix)) refs.attempts.set(name, sha);
  }
  return refs;
}
