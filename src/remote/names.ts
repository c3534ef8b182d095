import { attemptRefPrefix, ralphBranch } from '../checkpoint/index.js';
import { assertValidChangeName } from '../core/change-name.js';

// The refs a run shares through a remote (docs/contract.md, "Beyond one machine"). Every name
// is derived from the change, so any machine finds a run by its change name alone.

/** `refs/ralphtool/<change>/record`: a commit whose tree is the run's record (record.ts). */
export function recordRef(change: string): string {
  return `refs/ralphtool/${assertValidChangeName(change)}/record`;
}

/** `refs/ralphtool/<change>/claim`: which machine works on the change now (claim.ts). */
export function claimRef(change: string): string {
  return `refs/ralphtool/${assertValidChangeName(change)}/claim`;
}

/**
 * Where a fetched copy of a remote's ref is kept locally: under `refs/ralphtool-remote/<remote>/`
 * (never pushed, never mistaken for the run's own refs).
 */
export function fetchedRef(remote: string, ref: string): string {
  const safe = remote.replace(/[^A-Za-z0-9._-]/g, '_').replace(/^[.-]/, '_');
  return `refs/ralphtool-remote/${safe}/${ref.replace(/^refs\//, '')}`;
}

/**
 * What a push of the run carries: the branch (when it exists), the attempt refs (all of them, or
 * exactly `attempts` when some must stay here), the record.
 */
export function runRefspecs(
  change: string,
  withBranch: boolean,
  attempts?: readonly string[],
): { src: string; dst: string }[] {
  const branch = `refs/heads/${ralphBranch(change)}`;
  const every = `${attemptRefPrefix(change)}*`;
  const attemptSpecs =
    attempts === undefined
      ? [{ src: every, dst: every }]
      : attempts.map((ref) => ({ src: ref, dst: ref }));
  return [
    ...(withBranch ? [{ src: branch, dst: branch }] : []),
    ...attemptSpecs,
    { src: recordRef(change), dst: recordRef(change) },
  ];
}

/**
 * Where this machine keeps the tip of `ralph/<change>` it last pushed to (or fetched from) the
 * remote: the one state from which its next push may move the remote branch (remote/push.ts).
 * Local only, like every `refs/ralphtool-remote/` ref.
 */
export function pushedTipRef(remote: string, change: string): string {
  return fetchedRef(remote, `refs/heads/${ralphBranch(change)}`);
}
