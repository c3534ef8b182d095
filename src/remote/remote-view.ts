import { RuntimeError } from '../core/errors.js';
import { parseRunState, progressRef, ralphBranch, type RunState } from '../checkpoint/index.js';
import { git, type GitContext } from '../git/git.js';
import { fetchRefs, listRemoteRefs } from '../git/remote.js';
import { resolveCommit } from '../git/repo.js';
import { fetchedRef, pushedTipRef, recordRef } from './names.js';
import { RECORD_FILES, readRecordFile, type RecordAbout } from './record.js';

// What the remote holds of one run now, read before a run that pushes acts on it
// (docs/contract.md, "The remote is the truth"), and the tip this machine last pushed there.

/** The remote's `ralph/<change>` and record, as they are now. */
export interface RemoteRunView {
  /** The tip of `ralph/<change>` on the remote; null when it has none. */
  branch: string | null;
  /** The progress save of an attempt going on there (another machine's); null when none. */
  progress: string | null;
  /** The record commit (fetched here), what it says, and who wrote it; null when none. */
  record: { sha: string; state: RunState | null; about: RecordAbout | null } | null;
}

/** Reads the remote's branch, progress save and record of the change: one `ls-remote`, one fetch. */
export async function readRemoteRunView(
  ctx: GitContext,
  remote: string,
  change: string,
): Promise<RemoteRunView> {
  const branchRef = `refs/heads/${ralphBranch(change)}`;
  const record = recordRef(change);
  const progressName = progressRef(change);
  const listed = await listRemoteRefs(ctx, remote, [branchRef, record, progressName]);
  if ('error' in listed) throw unreachableRemote(remote, listed.error);
  const branch = listed.refs.get(branchRef) ?? null;
  const progress = listed.refs.get(progressName) ?? null;
  const recordSha = listed.refs.get(record);
  if (recordSha === undefined) return { branch, progress, record: null };
  const local = fetchedRef(remote, record);
  const fetched = await fetchRefs(ctx, remote, [`+${record}:${local}`]);
  if (!fetched.ok) {
    // Deleted between the listing and the fetch (the run's end on another machine): none now.
    const again = await listRemoteRefs(ctx, remote, [record]);
    if ('error' in again) throw unreachableRemote(remote, again.error);
    if (!again.refs.has(record)) return { branch, progress, record: null };
    throw unreachableRemote(remote, fetched.error);
  }
  const stateText = await readRecordFile(ctx, local, RECORD_FILES.state);
  const aboutText = await readRecordFile(ctx, local, RECORD_FILES.about);
  return {
    branch,
    progress,
    record: {
      sha: recordSha,
      state: stateText === null ? null : safely(() => parseRunState(stateText, record)),
      about: aboutText === null ? null : safely(() => JSON.parse(aboutText) as RecordAbout),
    },
  };
}

/** The tip of `ralph/<change>` this machine last pushed to (or fetched from) the remote. */
export async function readPushedTip(
  ctx: GitContext,
  remote: string,
  change: string,
): Promise<string | null> {
  return resolveCommit(ctx, pushedTipRef(remote, change));
}

/** Remembers where the remote's `ralph/<change>` is now, by this machine's push or fetch. */
export async function rememberPushedTip(
  ctx: GitContext,
  remote: string,
  change: string,
  sha: string | null,
): Promise<void> {
  const ref = pushedTipRef(remote, change);
  await git(ctx, sha === null ? ['update-ref', '-d', ref] : ['update-ref', ref, sha], {
    context: `could not remember where ${ralphBranch(change)} is on ${remote}`,
  });
}

/** Fetches the remote's `ralph/<change>` into `into` (a local ref); false when it is gone. */
export async function fetchRemoteBranch(
  ctx: GitContext,
  remote: string,
  change: string,
  into: string,
): Promise<boolean> {
  const fetched = await fetchRefs(ctx, remote, [`+refs/heads/${ralphBranch(change)}:${into}`]);
  return fetched.ok;
}

function safely<T>(read: () => T): T | null {
  try {
    return read();
  } catch {
    return null;
  }
}

/** The refusal when a remote cannot be read: what git said, and the command that checks it. */
export function unreachableRemote(remote: string, words: string): RuntimeError {
  return new RuntimeError(
    `cannot reach the remote ${JSON.stringify(remote)}: ${words} (check \`git ls-remote ${remote}\`)`,
  );
}
