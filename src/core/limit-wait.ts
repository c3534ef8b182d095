import type { LimitKind } from './events.js';

// How long a usage/rate limit or a transient API error is waited out (docs/contract.md, "Usage
// limits"). Pure: the loop (src/run/unattended/limit-wait.ts) gives it the clock and does the waiting.

/**
 * Added to a reset time the agent reported. The reset comes from the API's clock, not ours, and
 * is often rounded to the second or the minute: trying again exactly at it risks a second limit
 * (not charged, but another agent start and another wait).
 */
export const RESET_MARGIN_MS = 10_000;

/** Usage and rate limits without a reset time: 1m, 2m, 4m, … doubling up to 30m. */
export const LIMIT_BACKOFF_MS = { first: 60_000, cap: 30 * 60_000 } as const;

/** Transient API errors (overloaded, 5xx, connection): 15s, 30s, 1m, 2m, then 4m. */
export const TRANSIENT_BACKOFF_MS = { first: 15_000, cap: 4 * 60_000 } as const;

/** The shortest wait for a transient error that gave its own retry time. */
export const MIN_TRANSIENT_WAIT_MS = 1_000;

/**
 * The transient error that meets this many in a row is no longer waited out: it counts as an
 * ordinary failure (kind `agent-error`), so an API that stays broken ends in `max-retries`
 * instead of retrying for ever. The five before it were waited out (15s … 2m, about 4 minutes).
 */
export const TRANSIENT_TRIES = 6;

/**
 * A reset further ahead than this is not believed (weekly usage windows reset within 7 days): a
 * misread unit or a broken clock must not park the run for months. The backoff is used instead.
 */
export const MAX_CREDIBLE_RESET_MS = 8 * 24 * 60 * 60_000;

export const TRANSIENT_KINDS: ReadonlySet<LimitKind> = new Set([
  'overloaded',
  'server',
  'connection',
]);

export interface LimitWaitInput {
  kind: LimitKind;
  /** When the limit resets (ISO 8601, or anything Date.parse reads), when the agent said so. */
  resetsAt: string | null;
  /** Limited attempts in a row, this one included (1 for the first). */
  consecutive: number;
  /** Time already waited for limits in this invocation. */
  waitedMs: number;
  /** `--max-wait`: the most this invocation waits for limits in all. */
  maxWaitMs: number;
  /** When the run must end (`--max-duration`), epoch ms; null = no deadline. */
  notAfter: number | null;
  now: number;
}

export type LimitDecision =
  /** Wait `waitMs` (until `until`, epoch ms), then try the same story again. */
  | { action: 'wait'; waitMs: number; until: number }
  /**
   * Do not wait: the wait would go past `--max-wait` (outcome `limited`) or past the run's
   * deadline first (outcome `time-limit`). `waitMs` is the wait that was needed.
   */
  | { action: 'stop'; outcome: 'limited' | 'time-limit'; waitMs: number; until: number }
  /** Too many transient errors in a row: count the attempt as an ordinary failure. */
  | { action: 'count' };

/** What to do about the limit an attempt met (see the constants above for the numbers). */
export function decideLimitWait(input: LimitWaitInput): LimitDecision {
  const transient = TRANSIENT_KINDS.has(input.kind);
  if (transient && input.consecutive >= TRANSIENT_TRIES) return { action: 'count' };
  const waitMs = waitFor(input, transient);
  const until = input.now + waitMs;
  const maxWaitEnd = input.now + Math.max(0, input.maxWaitMs - input.waitedMs);
  const deadline = input.notAfter ?? Number.POSITIVE_INFINITY;
  if (until <= maxWaitEnd && until <= deadline) return { action: 'wait', waitMs, until };
  // Both would be passed: the one that comes first names the outcome.
  const outcome = deadline < maxWaitEnd ? 'time-limit' : 'limited';
  return { action: 'stop', outcome, waitMs, until };
}

/**
 * How long a limit lasts by the policy, without `--max-wait` or a deadline: until the reset plus
 * the margin, else the backoff. A fallback agent is tried meanwhile (docs/contract.md, "Fallback
 * agents"), so this is when the limited agent may be tried again.
 */
export function limitWaitMs(
  input: Pick<LimitWaitInput, 'kind' | 'resetsAt' | 'consecutive' | 'now'>,
): number {
  return waitFor(input, TRANSIENT_KINDS.has(input.kind));
}

/** The wait itself: until the reset plus the margin, else the backoff for the kind. */
function waitFor(
  input: Pick<LimitWaitInput, 'resetsAt' | 'consecutive' | 'now'>,
  transient: boolean,
): number {
  const reset = input.resetsAt === null ? Number.NaN : Date.parse(input.resetsAt);
  if (Number.isFinite(reset) && reset - input.now <= MAX_CREDIBLE_RESET_MS) {
    // A transient error's reset is the server's own retry-after hint, seconds away: taken as it
    // is (at least a second: never a busy retry; TRANSIENT_TRIES bounds them).
    if (transient) return Math.max(MIN_TRANSIENT_WAIT_MS, reset - input.now);
    // A reset already past (clock skew, a stale report) still gets the margin: never a busy retry.
    return Math.max(0, reset - input.now) + RESET_MARGIN_MS;
  }
  return backoffMs(transient ? TRANSIENT_BACKOFF_MS : LIMIT_BACKOFF_MS, input.consecutive);
}

/** first, 2×first, 4×first, … up to cap, for the `consecutive`-th limit in a row. */
export function backoffMs(steps: { first: number; cap: number }, consecutive: number): number {
  const doublings = Math.min(Math.max(consecutive, 1) - 1, 30);
  return Math.min(steps.first * 2 ** doublings, steps.cap);
}

/** A remaining wait for a recorded one (after a crash): the time left until `until`, or none. */
export function remainingWaitMs(until: number, now: number): number {
  return Math.max(0, until - now);
}

/** What a wait is for, in words: `waiting for the usage limit`, `… for the overloaded API`. */
export function limitName(kind: LimitKind): string {
  const names: Record<LimitKind, string> = {
    usage: 'the usage limit',
    rate: 'the rate limit',
    overloaded: 'the overloaded API',
    server: 'the API after a server error',
    connection: 'the API connection',
  };
  return names[kind];
}
