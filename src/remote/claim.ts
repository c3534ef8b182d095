import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { z } from 'zod';
import { commitTree } from '../git/commit.js';
import { git, gitOut, type GitContext } from '../git/git.js';
import { fetchRefs, listRemoteRefs, pushRefs } from '../git/remote.js';
import { claimRef, fetchedRef } from './names.js';
import { unreachableRemote } from './remote-view.js';

// One machine per change (docs/contract.md and docs/git-protocol.md, "Claims"):
// `refs/ralphtool/<change>/claim` on the remote names the machine working on the change. It is
// created with a push that succeeds only if the ref does not exist yet, refreshed and released
// with pushes that succeed only if it is still the commit this machine wrote: the remote's ref
// update is the one atomic step, so of two machines racing exactly one wins.

const claimSchema = z.object({
  change: z.string(),
  host: z.string(),
  pid: z.number().int(),
  /** Random, written once per claim: tells this claim from an earlier one of the same pid. */
  token: z.string(),
  startedAt: z.iso.datetime(),
  heartbeatAt: z.iso.datetime(),
});

export type ClaimInfo = z.infer<typeof claimSchema>;

/** A claim as found on the remote: its commit and what it says (null when unreadable). */
export interface RemoteClaim {
  sha: string;
  info: ClaimInfo | null;
}

/** A claim this process holds: the commit the remote's ref is at. */
export interface HeldClaim {
  remote: string;
  change: string;
  sha: string;
  info: ClaimInfo;
}

export const CLAIM_FILE = 'claim.json';

/** A new claim's words for this process. */
export function newClaimInfo(change: string, now: Date): ClaimInfo {
  const at = now.toISOString();
  return {
    change,
    host: hostname(),
    pid: process.pid,
    token: randomBytes(8).toString('hex'),
    startedAt: at,
    heartbeatAt: at,
  };
}

/** Writes a claim commit (a tree with claim.json, no parent). */
export async function claimCommit(ctx: GitContext, info: ClaimInfo): Promise<string> {
  const blob = await gitOut(ctx, ['hash-object', '-w', '--stdin'], {
    input: `${JSON.stringify(info, null, 2)}\n`,
    context: 'could not write the claim',
  });
  const tree = await gitOut(ctx, ['mktree'], {
    input: `100644 blob ${blob}\t${CLAIM_FILE}\n`,
    context: 'could not write the claim',
  });
  return commitTree(
    ctx,
    tree,
    [],
    `ralphtool claim: ${info.change} on ${info.host}`,
    'could not write the claim',
  );
}

/** The claim on the remote now; null when there is none. Throws when the remote cannot be read. */
export async function readRemoteClaim(
  ctx: GitContext,
  remote: string,
  change: string,
): Promise<RemoteClaim | null> {
  const ref = claimRef(change);
  const listed = await listRemoteRefs(ctx, remote, [ref]);
  if ('error' in listed) throw unreachableRemote(remote, listed.error);
  const sha = listed.refs.get(ref);
  if (sha === undefined) return null;
  const local = fetchedRef(remote, ref);
  const fetched = await fetchRefs(ctx, remote, [`+${ref}:${local}`]);
  if (!fetched.ok) {
    // Released (or replaced) between the listing and the fetch: read it again.
    const again = await listRemoteRefs(ctx, remote, [ref]);
    if ('error' in again) throw unreachableRemote(remote, again.error);
    if (!again.refs.has(ref)) return null;
    throw unreachableRemote(remote, fetched.error);
  }
  const text = await git(ctx, ['cat-file', 'blob', `${local}:${CLAIM_FILE}`], {
    allowFailure: true,
  });
  return { sha: await gitOut(ctx, ['rev-parse', local]), info: parseClaim(text.stdout) };
}

/**
 * Pushes `info` as the claim, only if the remote's claim ref is at `expect` now (the empty
 * string: only if there is none). Returns the held claim, or null when the lease did not hold
 * (someone else's claim is there now). Throws when the remote cannot be reached.
 */
export async function pushClaim(
  ctx: GitContext,
  remote: string,
  info: ClaimInfo,
  expect: string,
): Promise<HeldClaim | null> {
  const sha = await claimCommit(ctx, info);
  const ref = claimRef(info.change);
  const pushed = await pushRefs(ctx, remote, [{ src: sha, dst: ref, force: true, expect }]);
  if (pushed.ok) return { remote, change: info.change, sha, info };
  if (pushed.refs.some((r) => r.flag === '!')) return null;
  throw unreachableRemote(remote, pushed.message);
}

/** Deletes the claim on the remote if it is still ours; false when it was not (taken over). */
export async function deleteClaim(ctx: GitContext, held: HeldClaim): Promise<boolean> {
  const ref = claimRef(held.change);
  const pushed = await pushRefs(ctx, held.remote, [{ src: '', dst: ref, expect: held.sha }]);
  if (pushed.ok) return true;
  if (pushed.refs.some((r) => r.flag === '!')) return false;
  throw unreachableRemote(held.remote, pushed.message);
}

/** How long ago a claim's heartbeat was, in milliseconds (never negative). */
export function heartbeatAge(info: ClaimInfo, now: Date): number {
  return Math.max(0, now.getTime() - Date.parse(info.heartbeatAt));
}

function parseClaim(text: string): ClaimInfo | null {
  try {
    const parsed = claimSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}
