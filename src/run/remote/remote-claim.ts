import { hostname } from 'node:os';
import { RuntimeError, UsageError } from '../../core/errors.js';
import { errnoCode } from '../../core/error-details.js';
import { git, type GitContext } from '../../git/git.js';
import { formatDuration } from '../../format/units.js';
import {
  heartbeatAge,
  newClaimInfo,
  pushClaim,
  readRemoteClaim,
  type ClaimInfo,
  type HeldClaim,
  type RemoteClaim,
} from '../../remote/claim.js';

/** A claim taken, and the claim it replaced with why (for the warning and the event). */
export interface TakenClaim {
  held: HeldClaim;
  tookOver: RemoteClaim | null;
  /** Why the replaced claim could be taken: stale heartbeat, or its process on this host is gone. */
  reason: string;
}

/**
 * Claims the change on the remote (docs/contract.md and docs/git-protocol.md, "Claims"): creates
 * the claim ref when there is none; replaces a claim whose heartbeat is older than `ttlMs`, or one this host wrote whose
 * process is gone (this machine crashed); refuses (exit 1) a live or unreadable one, naming its
 * holder. A race lost at the push (another machine claimed it meanwhile) is read again and
 * judged the same way: of two machines racing, exactly one wins, since the remote's ref update
 * is the one atomic step.
 */
export async function acquireClaim(
  ctx: GitContext,
  remote: string,
  change: string,
  ttlMs: number,
  now: () => Date = () => new Date(),
): Promise<TakenClaim> {
  // Mostly no machine holds the change: the claim is pushed at once, leased on there being none
  // (a push, no look first); only when that is refused is the claim there read and judged.
  const first = await pushClaim(ctx, remote, newClaimInfo(change, now()), '');
  if (first !== null) return { held: first, tookOver: null, reason: '' };
  for (let round = 0; round < 3; round += 1) {
    const current = await readRemoteClaim(ctx, remote, change);
    const reason = current === null ? '' : takeable(current, now(), ttlMs);
    if (current !== null && reason === null) {
      throw claimedElsewhere(remote, change, current, now(), ttlMs);
    }
    const held = await pushClaim(ctx, remote, newClaimInfo(change, now()), current?.sha ?? '');
    if (held !== null) return { held, tookOver: current, reason: reason ?? '' };
  }
  const current = await readRemoteClaim(ctx, remote, change);
  if (current !== null) throw claimedElsewhere(remote, change, current, now(), ttlMs);
  throw new RuntimeError(
    `could not claim ${change} on ${remote}: the claim kept changing while ralphtool tried; try again`,
  );
}

/** Why a claim may be taken over, or null when it may not (also what a worker judges by). */
export function takeable(claim: RemoteClaim, now: Date, ttlMs: number): string | null {
  const info = claim.info;
  if (info === null) return null; // written by a newer ralphtool, or by hand: never guessed at
  const age = heartbeatAge(info, now);
  if (age > ttlMs) {
    return `its heartbeat is ${formatDuration(age)} old, older than --claim-ttl (${formatDuration(ttlMs)})`;
  }
  if (info.host === hostname() && !processAlive(info.pid)) {
    return `its process (pid ${info.pid}) on this host is gone`;
  }
  return null;
}

function processAlive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return errnoCode(error) === 'EPERM';
  }
}

/**
 * Refuses (exit 2, before anything changes) a `--push` remote git cannot name: neither a
 * configured remote nor something that reads as a URL or a path.
 */
export async function assertRemoteKnown(ctx: GitContext, remote: string): Promise<void> {
  const configured = await git(ctx, ['remote', 'get-url', '--', remote], { allowFailure: true });
  if (configured.exitCode === 0) return;
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(remote) || /^[^/:]+@[^:]+:/.test(remote)) return;
  if (remote.includes('/') || remote.startsWith('.')) return;
  throw new UsageError(
    `${JSON.stringify(remote)} is not a remote of this repository (\`git remote -v\` lists them): name one, or give its URL or path`,
  );
}

/** A claim refused because another machine holds the change (a worker then moves on). */
export class ClaimedElsewhere extends RuntimeError {}

/** Who holds a claim, in one phrase (the refusal, `worker`'s skips). */
export function claimHolder(
  remote: string,
  change: string,
  claim: { sha: string; info: ClaimInfo | null },
  now: Date,
): string {
  const info = claim.info;
  return info === null
    ? `a claim ralphtool cannot read (${claim.sha.slice(0, 8)}; \`git ls-remote ${remote} refs/ralphtool/${change}/claim\`)`
    : `${info.host} (pid ${info.pid}, since ${info.startedAt}), last heartbeat ${formatDuration(heartbeatAge(info, now))} ago`;
}

function claimedElsewhere(
  remote: string,
  change: string,
  claim: RemoteClaim,
  now: Date,
  ttlMs: number,
): RuntimeError {
  const who = claimHolder(remote, change, claim, now);
  return new ClaimedElsewhere(
    `${change} is claimed on ${remote} by ${who}: another machine is running it. Wait for it to end, or run again once its heartbeat is older than --claim-ttl (${formatDuration(ttlMs)})`,
  );
}
