import { z } from 'zod';
import { percentOf } from '../core/account-window.js';
import type { AgentLimit } from './types.js';

// How Claude Code reports a usage/rate limit or a transient API failure, learnt by driving the
// real binary (2.1.197) against a local server: see test/fixtures/claude-stream/README.md.
// Only Claude Code's own report lines count (`rate_limit_event`, `api_retry`, an error
// `result`): never text the model wrote or a tool returned.

/**
 * `{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1795453055,
 * "rateLimitType":"five_hour",…}}`: printed for a claude.ai subscription (not an API key)
 * whenever the unified limit's status changes. `resetsAt` is in Unix seconds.
 */
export const RateLimitLine = z.object({
  type: z.literal('rate_limit_event'),
  rate_limit_info: z.object({
    status: z.string(),
    resetsAt: z.number().nullish(),
    rateLimitType: z.string().nullish(),
    utilization: z.number().nullish(),
  }),
});
export type RateLimitInfo = z.infer<typeof RateLimitLine>['rate_limit_info'];

/** Claude Code's own names for its subscription windows (as in its "You've hit your …"). */
const WINDOW_NAMES: Record<string, string> = {
  five_hour: 'session limit',
  seven_day: 'weekly limit',
  seven_day_opus: 'Opus limit',
  seven_day_sonnet: 'Sonnet limit',
  seven_day_overage_included: 'weekly limit',
  overage: 'usage credit limit',
};

const windowName = (info: RateLimitInfo | null): string =>
  WINDOW_NAMES[info?.rateLimitType ?? ''] ?? 'usage limit';

/** Unix seconds as ISO 8601; null when absent or not a time. */
function isoFromSeconds(seconds: number | null | undefined): string | null {
  if (seconds === null || seconds === undefined || !Number.isFinite(seconds)) return null;
  const date = new Date(seconds * 1000);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

/** The window's utilisation as a percent, when the event gives it and a reset; else null. */
export function rateLimitUsage(
  info: RateLimitInfo,
): { percent: number; resetsAt: string; window: string | null } | null {
  const resetsAt = isoFromSeconds(info.resetsAt);
  if (typeof info.utilization !== 'number' || !Number.isFinite(info.utilization)) return null;
  if (resetsAt === null || info.utilization < 0) return null;
  return { percent: percentOf(info.utilization), resetsAt, window: info.rateLimitType ?? null };
}

/** `allowed_warning`: the run goes on, but the user should know a limit is near. */
export function rateLimitWarning(info: RateLimitInfo): string | null {
  if (info.status !== 'allowed_warning') return null;
  const used =
    typeof info.utilization === 'number' ? `${Math.round(info.utilization * 100)}% of ` : '';
  const resets = isoFromSeconds(info.resetsAt);
  return `Claude Code is near its limit: ${used}the ${windowName(info)} used${resets ? `, resets at ${resets}` : ''}`;
}

/**
 * The human texts Claude Code puts in an error `result` for a subscription limit: today
 * `You've hit your session limit · resets 4:57pm (UTC)` (also weekly/Opus/Sonnet limits),
 * before 2.x `Claude AI usage limit reached|<Unix seconds>`. Read ONLY from a `result` with
 * `is_error: true`, and only at its start.
 */
const USAGE_TEXT = /^(?:You've hit your [^\n·]*limit\b|Claude AI usage limit reached\|(\d{9,11}))/;
/** Claude Code's words for an API it could not reach (ConnectionRefused, timeouts, TLS). */
const CONNECTION_TEXT =
  /^API Error: (?:Unable to connect to API|Request timed out|Connection error)/;

export interface ResultFacts {
  /** `api_error_status` of the error `result`; null when there was no HTTP answer. */
  status: number | null;
  text: string;
  /** The last `rate_limit_event` with status `rejected`, if any. */
  rejected: RateLimitInfo | null;
  /** The HTTP status of the last `api_retry` line: undefined = none, null = no connection. */
  lastRetryStatus: number | null | undefined;
}

/** The limit an error `result` reports; null for any other failure (401 stays fatal). */
export function limitFromResult(facts: ResultFacts): AgentLimit | null {
  const { status, text, rejected } = facts;
  const usageText = USAGE_TEXT.exec(text);
  if (status === 429 || usageText) {
    const resetsAt = isoFromSeconds(rejected?.resetsAt) ?? isoFromSeconds(Number(usageText?.[1]));
    const usage = rejected !== null || usageText !== null;
    const source =
      rejected !== null
        ? 'claude rate_limit_event'
        : status === 429
          ? 'claude result (API 429)'
          : 'claude result';
    const what = usage
      ? `Claude Code hit its ${windowName(rejected)}`
      : 'the Claude API refused the request with 429 (rate limit)';
    return {
      kind: usage ? 'usage' : 'rate',
      resetsAt,
      source,
      message: resetsAt ? `${what}; it resets at ${resetsAt}` : `${what} (${firstLine(text)})`,
    };
  }
  if (status === 529) {
    return {
      kind: 'overloaded',
      resetsAt: null,
      source: 'claude result (API 529)',
      message: 'the Claude API is overloaded (529) and Claude Code gave up retrying',
    };
  }
  if (status !== null && status >= 500 && status <= 599) {
    return {
      kind: 'server',
      resetsAt: null,
      source: `claude result (API ${status})`,
      message: `the Claude API failed with a server error (${status}) and Claude Code gave up retrying`,
    };
  }
  if (status === null && (facts.lastRetryStatus === null || CONNECTION_TEXT.test(text))) {
    return {
      kind: 'connection',
      resetsAt: null,
      source: 'claude result (no connection)',
      message: `Claude Code could not reach the API (${firstLine(text)})`,
    };
  }
  return null;
}

/** A `rejected` event with no `result` after it (Claude Code died or was stopped at the limit). */
export function limitFromRejected(rejected: RateLimitInfo): AgentLimit {
  const resetsAt = isoFromSeconds(rejected.resetsAt);
  return {
    kind: 'usage',
    resetsAt,
    source: 'claude rate_limit_event',
    message: `Claude Code hit its ${windowName(rejected)}${resetsAt ? `; it resets at ${resetsAt}` : ''}`,
  };
}

function firstLine(text: string): string {
  const line = text.split('\n')[0]?.trim() ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
