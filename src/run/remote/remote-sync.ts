import { hostname } from 'node:os';
import type { RunEvent } from '../../core/events.js';
import { messageOf } from '../../core/error-details.js';
import type { GitContext } from '../../git/git.js';
import { ralphBranch, type RunPaths } from '../../checkpoint/index.js';
import { branchSha } from '../../git/repo.js';
import { claimRef, runRefspecs } from '../../remote/names.js';
import { branchMovedOnRemote, currentProgress, pushRun } from '../../remote/push.js';
import { RECORD_FORMAT, newRecordMemo, writeRecord } from '../../remote/record.js';
import { readRunRefs } from '../../remote/run-refs.js';
import type { Secret } from '../../core/redact.js';
import { createSecretScreen } from './secret-screen.js';
import {
  CARRIED,
  CARRY_MS,
  PUSH_BACKOFF,
  PUSH_GAP_MS,
  PUSHED_AFTER,
  readQuietState,
} from './push-timing.js';

// `--push <remote>` (docs/contract.md, "Every step on the remote"; how pushes are serialised:
// docs/git-protocol.md, "Pushes"): after the start, each
// attempt's start, each checkpoint and each saved attempt, the run's refs and its record are
// pushed. The loop never waits for a push; pushes run one at a time, requests made meanwhile
// are folded into the next one, a checkpoint's push waits (up to CARRY_MS) for the next step so
// that one push carries both, and a push starts PUSH_GAP_MS after the last one at the soonest
// (the run's end at once), and a failure is retried with a growing pause and reported,
// never the run's end. `run.finished` is held until the last push has been tried, so that it
// stays the last event and the process does not end before the remote has the run's end.

export interface RemoteSyncConfig {
  remote: string;
  change: string;
  /** The repository's context for remote verbs (git/remote.ts remoteContext). */
  ctx: GitContext;
  paths: RunPaths;
  /** The repository's git common dir: the run's refs are read from its files when they tell. */
  gitCommonDir?: string;
  /** Where events go on. */
  next: (event: RunEvent) => void;
  backoff?: { firstMs: number; maxMs: number };
  /** The claim commit this machine holds now: every push is refused once it is not the remote's. */
  claimSha?: () => string;
  /**
   * The run's last push (`settled`) deletes the claim too, leased, in the same atomic push: the
   * release costs no push of its own. Said by `claimReleased`.
   */
  releaseClaim?: boolean;
  /** Runs a push when no other push of this machine (a heartbeat) is under way. */
  exclusive?: <T>(push: () => Promise<T>) => Promise<T>;
  /** Values never written into the record (remote/redact.ts), read before each record. */
  secrets?: () => Promise<readonly Secret[]>;
  /** The remote holds a progress save already (another machine's): the first push drops it. */
  progressOnRemote?: boolean;
  /** A push was refused on the claim: the session checks whether it was lost. */
  onClaimRefused?: () => void;
  /** A push was refused because the remote's branch is not where this run last pushed it. */
  onBranchMoved?: () => void;
  /** How long a push waits while the record says a git sequence is half-way. */
  settleMs?: number;
  /** How long a checkpoint's push waits for the next step to go with it (CARRY_MS). */
  carryMs?: number;
  /** The least time between two pushes' starts (PUSH_GAP_MS). */
  gapMs?: number;
  /** The clock the gap is measured by (epoch ms). */
  now?: () => number;
}

export interface RemoteSync {
  /** Passes the event on (a `run.finished` once the last push has been tried) and pushes after it. */
  emit: (event: RunEvent) => void;
  /** Pushes what is not on the remote yet, now; resolves when that push has been tried. */
  flush: () => Promise<boolean>;
  /** Resolves when no push is running or waiting and a held `run.finished` is passed on. */
  settled: () => Promise<void>;
  /** No more retries (the process is ending). */
  close: () => void;
  /** A push of what is there now (the attempt in progress was saved). */
  request: () => void;
  /** No more pushes at all (the claim was lost: the remote's refs are another machine's now). */
  disable: () => void;
  /** Whether the last push released the claim (`releaseClaim`): nothing is pushed after it. */
  readonly claimReleased: boolean;
}

export function createRemoteSync(config: RemoteSyncConfig): RemoteSync {
  const backoff = config.backoff ?? PUSH_BACKOFF;
  let wanted = 0; // requests made
  let done = 0; // requests covered by a successful push
  let running: Promise<void> | null = null;
  let failures = 0;
  let retry: NodeJS.Timeout | null = null;
  /** A push held back (carried, or waiting for the gap): it kicks when it fires. */
  let carry: NodeJS.Timeout | null = null;
  let carryUntil = 0;
  let lastPushAt = Number.NEGATIVE_INFINITY;
  const now = config.now ?? Date.now;
  const gapMs = config.gapMs ?? PUSH_GAP_MS;
  let closed = false;
  let disabled = false;
  let held: RunEvent | null = null;
  let finalPush = false;
  /** The push about to start is the run's last and releases the claim (`releaseClaim`). */
  let releasing = false;
  let claimReleased = false;
  let progressOnRemote = config.progressOnRemote === true;
  const secrets = config.secrets;
  const screen =
    secrets === undefined
      ? null
      : createSecretScreen({
          ctx: config.ctx,
          change: config.change,
          secrets,
          warn: (message) => config.next({ type: 'error', message, fatal: false }),
        });
  /** The committer and the blobs of the records written before (remote/record.ts). */
  const memo = newRecordMemo();
  /** The attempt refs the last push tried (when some stay here), for the by-hand push. */
  let lastAttempts: readonly string[] | undefined;

  const pushOnce = async (): Promise<void> => {
    const covering = wanted;
    try {
      const quiet = await readQuietState(config.paths.state, config.settleMs ?? 5_000);
      if (quiet === null) {
        // No run recorded (any more): nothing to push, and nothing to wait for.
        done = Math.max(done, covering);
        return;
      }
      // The run's refs read once (branch, pushed tip, progress save, saved attempts, record).
      const refs = await readRunRefs(config.ctx, config.remote, config.change, config.gitCommonDir);
      await writeRecord(
        config.ctx,
        config.paths,
        {
          format: RECORD_FORMAT,
          change: config.change,
          host: hostname(),
          writtenAt: new Date().toISOString(),
          stateText: quiet.text,
        },
        (await config.secrets?.()) ?? [],
        { previous: refs.record, memo },
      );
      const found = await currentProgress(config.ctx, config.change, quiet.state, refs.progress);
      // What holds a secret's value stays here (secret-screen.ts).
      const progress =
        found !== null && screen !== null && !(await screen.progressMayGo(found)) ? null : found;
      const attempts = screen === null ? undefined : await screen.attemptsToPush(refs.attempts);
      lastAttempts = attempts;
      const exclusive = config.exclusive ?? (<T>(push: () => Promise<T>) => push());
      const release = releasing && config.claimSha !== undefined;
      // The claim's sha is read once no heartbeat is moving it: the lease is the one on the remote.
      const pushed = await exclusive(() =>
        pushRun(config.ctx, config.remote, config.change, {
          branchAt: quiet.state.checkpointSha,
          ...(attempts === undefined ? {} : { attempts }),
          progress: progress !== null ? { push: progress } : progressOnRemote ? 'delete' : null,
          refs,
          ...(config.claimSha ? { claimSha: config.claimSha() } : {}),
          ...(release ? { releaseClaim: true } : {}),
        }),
      );
      if (!pushed.ok) {
        if (pushed.refs.some((r) => r.flag === '!' && r.dst === claimRef(config.change))) {
          config.onClaimRefused?.();
        }
        if (branchMovedOnRemote(pushed, config.change)) config.onBranchMoved?.();
        throw new Error(pushed.message);
      }
      done = Math.max(done, covering);
      progressOnRemote = progress !== null;
      if (release) {
        // The claim is gone from the remote: no push of this machine may follow.
        claimReleased = true;
        disabled = true;
      }
      config.next({
        type: 'remote.pushed',
        remote: config.remote,
        // The run's refs (the claim, kept or released, is no ref of the run).
        refs: pushed.refs.filter((r) => r.flag !== '=' && r.dst !== claimRef(config.change)).length,
        ...(failures > 0 ? { caughtUpAfter: failures } : {}),
      });
      failures = 0;
    } catch (error) {
      failures += 1;
      const retryInMs = Math.min(backoff.maxMs, backoff.firstMs * 2 ** (failures - 1));
      config.next({
        type: 'remote.push-failed',
        remote: config.remote,
        message: messageOf(error),
        failures,
        retryInMs: closed || finalPush ? null : retryInMs,
        refspecs: runRefspecs(config.change, await branchExists(), lastAttempts).map(
          (r) => `${r.src}:${r.dst}`,
        ),
      });
      if (!closed && !finalPush) scheduleRetry(retryInMs);
    }
  };

  /** Whether `ralph/<change>` is still here (a cleanup deletes it: then it is not pushed). */
  const branchExists = async (): Promise<boolean> =>
    (await branchSha(config.ctx, ralphBranch(config.change)).catch(() => null)) !== null;

  const scheduleRetry = (ms: number): void => {
    if (retry !== null) return;
    retry = setTimeout(() => {
      retry = null;
      // The backoff decides when a failed push is tried again, not the gap.
      kick(true).catch(() => undefined); // pushOnce reports its own failures
    }, ms);
    retry.unref();
  };

  /** A carried push waits no longer: the next step (or the run's end) goes now, with it. */
  const dropCarry = (): void => {
    if (carry === null) return;
    clearTimeout(carry);
    carry = null;
  };

  /** Holds the push back `ms`, then kicks; a shorter hold replaces a longer one. */
  const holdFor = (ms: number): void => {
    const until = now() + ms;
    if (carry !== null && carryUntil <= until) return;
    dropCarry();
    carryUntil = until;
    carry = setTimeout(() => {
      carry = null;
      if (retry === null) kick().catch(() => undefined);
    }, ms);
    carry.unref();
  };

  /** Whether the push may go now (`urgent`: whatever the hold and the gap); else held. */
  const mayGo = (urgent: boolean): boolean => {
    if (urgent) return true;
    if (carry !== null) return false;
    const wait = lastPushAt + gapMs - now();
    if (wait <= 0) return true;
    holdFor(wait);
    return false;
  };

  const kick = (urgent = false): Promise<void> => {
    if (running !== null) return running;
    if (done >= wanted || disabled || !mayGo(urgent)) return Promise.resolve();
    running = (async () => {
      try {
        // While a push runs, new requests wait for it, then the next push covers them all —
        // once the gap is over (a carried one goes with the next step instead).
        while (done < wanted && !disabled && !(failures > 0 && retry !== null)) {
          if (!mayGo(urgent)) break;
          const before = failures;
          lastPushAt = now();
          await pushOnce();
          if (failures > before) break;
        }
      } finally {
        running = null;
      }
    })();
    return running;
  };

  const flush = async (last = false): Promise<boolean> => {
    dropCarry();
    if (wanted === done) wanted += 1;
    if (retry !== null) {
      clearTimeout(retry);
      retry = null;
    }
    await running;
    dropCarry();
    // Only the push started here, once no other runs, may be the last (and release the claim).
    releasing = last && config.releaseClaim === true;
    try {
      await kick(true);
    } finally {
      releasing = false;
    }
    return done >= wanted;
  };

  const passFinished = (): void => {
    if (held === null) return;
    const event = held;
    held = null;
    config.next(event);
  };

  return {
    emit: (event) => {
      if (event.type === 'run.finished') {
        held = event;
        wanted += 1;
        return;
      }
      config.next(event);
      if (PUSHED_AFTER.has(event.type)) {
        wanted += 1;
        if (CARRIED.has(event.type)) {
          if (carry === null && retry === null && !disabled) holdFor(config.carryMs ?? CARRY_MS);
          return;
        }
        dropCarry();
        if (retry === null) kick().catch(() => undefined);
      }
    },
    flush: () => flush(),
    settled: async () => {
      // The run's end: one last push whatever was pushed before (its state is the final one).
      finalPush = true;
      if (!disabled) await flush(true);
      passFinished();
      await running;
    },
    request: () => {
      dropCarry();
      wanted += 1;
      if (retry === null) kick().catch(() => undefined);
    },
    disable: () => {
      dropCarry();
      disabled = true;
      closed = true;
      if (retry !== null) clearTimeout(retry);
      retry = null;
    },
    close: () => {
      dropCarry();
      closed = true;
      if (retry !== null) clearTimeout(retry);
      retry = null;
    },
    get claimReleased() {
      return claimReleased;
    },
  };
}
