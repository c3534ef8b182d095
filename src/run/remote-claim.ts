import { RuntimeError } from '../core/errors.js';
import type { GitContext } from '../git/git.js';
import { formatDuration } from '../format/units.js';
import {
  heartbeatAge,
  newClaimInfo,
  pushClaim,
  readRemoteClaim,
  type HeldClaim,
  type RemoteClaim,
} from '../remote/claim.js';

/** A claim taken, and the stale claim it replaced (for the warning and the event). */
export interface TakenClaim {
  held: HeldClaim;
  tookOver: RemoteClaim | null;
}

/**
 * Claims the change on the remote (docs/contract.md, "Claims"): creates the claim ref when there
 * is none; replaces a claim whose heartbeat is older than `ttlMs`; refuses (exit 1) a live one,
 * naming its holder. A race lost at the push (another machine claimed it meanwhile) is read
 * again and judged the same way.
 */
export async function acquireClaim(
  ctx: GitContext,
  remote: string,
  change: string,
  ttlMs: number,
  now: () => Date = () => new Date(),
): Promise<TakenClaim> {
  for (let round = 0; round < 3; round += 1) {
    const current = await readRemoteClaim(ctx, remote, change);
    if (current !== null && (current.info === null || heartbeatAge(current.info, now()) <= ttlMs)) {
      throw claimedElsewhere(remote, change, current, now(), ttlMs);
    }
    const held = await pushClaim(ctx, remote, newClaimInfo(change, now()), current?.sha ?? '');
    if (held !== null) return { held, tookOver: current };
  }
  const current = await readRemoteClaim(ctx, remote, change);
  if (current !== null) throw claimedElsewhere(remote, change, current, now(), ttlMs);
  throw new RuntimeError(
    `could not claim ${change} on ${remote}: the claim kept changing while ralphtool tried; try again`,
  );
}

function claimedElsewhere(
  remote: string,
  change: string,
  claim: RemoteClaim,
  now: Date,
  ttlMs: number,
): RuntimeError {
  const info = claim.info;
  const who =
    info === null
      ? `an unreadable claim (${claim.sha.slice(0, 8)})`
      : `${info.host} (pid ${info.pid}), last heartbeat ${formatDuration(heartbeatAge(info, now))} ago`;
  return new RuntimeError(
    `${change} is claimed on ${remote} by ${who}: another machine is running it. Wait for it, or take it over once its heartbeat is older than --claim-ttl (${formatDuration(ttlMs)})`,
  );
}
