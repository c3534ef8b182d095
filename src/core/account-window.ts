import type { LimitKind } from './events.js';
import { RESET_MARGIN_MS } from './limit-wait.js';

// The usage governor (docs/contract.md, "One account, many runs"): what ralphtool learnt about an
// account's usage window, shared by every run on the machine through one small file per account
// (checkpoint/account-file.ts), and the decision each run makes with it before an attempt. Pure.

/** The run that wrote something into an account's entry. */
export interface AccountRunner {
  change: string;
  pid: number;
  host: string;
  /**
   * The run itself, whichever process goes on with it (a `resume`): a short hash of its run
   * folder (run/account-governor.ts). Absent in entries of older ralphtools.
   */
  run?: string | undefined;
}

/** A limit a run hit on the account: in force until `until` (ISO 8601). */
export interface AccountLimitHit {
  until: string;
  by: AccountRunner;
  kind: LimitKind;
  source: string;
  message: string;
}

/** The last utilisation the agent reported for the account's window. */
export interface AccountUsage {
  /** Percent of the window used, 0–100 (one decimal). */
  percent: number;
  /** When the window resets (ISO 8601). */
  resetsAt: string;
  /** The agent's name of the window (`five_hour`, `seven_day`, …); null when it gave none. */
  window: string | null;
  /** When it was seen (ISO 8601), and by which run. */
  seenAt: string;
  by: AccountRunner;
}

/** What the account's file holds. */
export interface AccountEntry {
  /** The agent kind whose login this is. */
  agent: string;
  limit: AccountLimitHit | null;
  usage: AccountUsage | null;
}

export const EMPTY_ACCOUNT = (agent: string): AccountEntry => ({ agent, limit: null, usage: null });

export interface AccountGateInput {
  entry: AccountEntry | null;
  /** The run deciding (a limit it recorded itself it has waited out already). */
  self: AccountRunner;
  /** `--pause-at`: the percent of the window at which no new attempt starts; null = none. */
  pauseAt: number | null;
  now: number;
}

export type AccountGate =
  | { action: 'go' }
  | {
      action: 'wait';
      /** Epoch ms. */
      until: number;
      cause: 'limit' | 'pause-at';
      kind: LimitKind;
      resetsAt: string;
      source: string;
      message: string;
    };

/**
 * The same run: the same run folder (any process of it: a `resume` does not wait for the limit
 * its own run recorded, it tries as a run without the governor would), else the same process.
 */
export function sameRunner(a: AccountRunner, b: AccountRunner): boolean {
  if (a.run !== undefined && b.run !== undefined) return a.run === b.run && a.host === b.host;
  return a.change === b.change && a.pid === b.pid && a.host === b.host;
}

/** `the run of <change> (pid <n>[ on <host>])`, for the messages of a shared wait. */
export function describeRunner(runner: AccountRunner, here: string): string {
  const where = runner.host === here ? '' : ` on ${runner.host}`;
  return `the run of ${runner.change} (pid ${runner.pid}${where})`;
}

/**
 * Whether a new attempt may start on the account: not while another run's limit is in force
 * (wait with it until its end), nor while the window is used at or above `--pause-at` and its
 * reset is ahead (wait until the reset, with the margin a limit's reset gets). An entry whose
 * time has passed is stale and ignored.
 */
export function decideAccountGate(input: AccountGateInput): AccountGate {
  const { entry, self, pauseAt, now } = input;
  const limit = entry?.limit ?? null;
  const limitEnd = limit === null ? Number.NaN : Date.parse(limit.until);
  if (limit !== null && limitEnd > now && !sameRunner(limit.by, self)) {
    return {
      action: 'wait',
      until: limitEnd,
      cause: 'limit',
      kind: limit.kind,
      resetsAt: limit.until,
      source: 'account',
      message: `${describeRunner(limit.by, self.host)} on the same account hit this limit: ${limit.message}`,
    };
  }
  const usage = entry?.usage ?? null;
  const reset = usage === null ? Number.NaN : Date.parse(usage.resetsAt);
  if (pauseAt !== null && usage !== null && usage.percent >= pauseAt && reset > now) {
    return {
      action: 'wait',
      until: reset + RESET_MARGIN_MS,
      cause: 'pause-at',
      kind: 'usage',
      resetsAt: usage.resetsAt,
      source: 'account',
      message: `the account's ${usage.window ?? 'usage'} window is ${usage.percent}% used (--pause-at ${pauseAt}); it resets at ${usage.resetsAt}`,
    };
  }
  return { action: 'go' };
}

/** A utilisation as the agent reported it (a fraction, 0.83) as a percent with one decimal. */
export function percentOf(fraction: number): number {
  return Math.round(fraction * 1000) / 10;
}

/** The entry with a limit this run hit recorded (it replaces an older one). */
export function withLimit(entry: AccountEntry, hit: AccountLimitHit): AccountEntry {
  const old = entry.limit;
  // A longer limit another run recorded stays: the account is limited until the later end.
  if (old !== null && Date.parse(old.until) > Date.parse(hit.until)) return entry;
  return { ...entry, limit: hit };
}

/**
 * Two copies of an account's entry as one (the machine's file and the remote's ref): the later
 * limit and the utilisation seen last.
 */
export function mergeAccounts(a: AccountEntry | null, b: AccountEntry | null): AccountEntry | null {
  if (a === null || b === null) return a ?? b;
  const later = <T>(x: T | null, y: T | null, at: (t: T) => string): T | null =>
    x === null || y === null ? (x ?? y) : Date.parse(at(y)) > Date.parse(at(x)) ? y : x;
  return {
    agent: a.agent,
    limit: later(a.limit, b.limit, (l) => l.until),
    usage: later(a.usage, b.usage, (u) => u.seenAt),
  };
}

/** The entry with the utilisation last seen. */
export function withUsage(entry: AccountEntry, usage: AccountUsage): AccountEntry {
  return { ...entry, usage };
}

/**
 * What holds now of an account's entry, as `status` and the dashboard show it: the window's
 * last utilisation while its reset is ahead, and a limit still in force with the run that hit
 * it. Null when neither is known.
 */
export interface AccountWindow {
  /** The account's key (agents/account-key.ts). */
  key: string;
  usage: { percent: number; resetsAt: string; window: string | null; seenAt: string } | null;
  limit: { until: string; change: string; pid: number; host: string; message: string } | null;
}

/** The account window of `entry` at `now`; null when nothing current is known. */
export function accountWindowOf(
  key: string,
  entry: AccountEntry | null,
  now: number,
): AccountWindow | null {
  if (entry === null) return null;
  const seen = entry.usage;
  const usage =
    seen !== null && Date.parse(seen.resetsAt) > now
      ? { percent: seen.percent, resetsAt: seen.resetsAt, window: seen.window, seenAt: seen.seenAt }
      : null;
  const hit = entry.limit;
  const limit =
    hit !== null && Date.parse(hit.until) > now
      ? {
          until: hit.until,
          change: hit.by.change,
          pid: hit.by.pid,
          host: hit.by.host,
          message: hit.message,
        }
      : null;
  return usage === null && limit === null ? null : { key, usage, limit };
}
