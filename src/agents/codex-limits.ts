import type { LimitKind } from '../core/events.js';
import type { AgentLimit } from './types.js';

// How Codex (`codex exec --json`) says it stopped at a limit, in the `message` of a
// `turn.failed` error or a top-level `error` event. Recorded from the real Codex 0.171.0
// (test/fixtures/codex-stream/, where Codex writes `’`, U+2019, not `'`), the rest from its
// source (openai/codex codex-rs/core/src/error.rs):
//
//   You’ve hit your usage limit. Upgrade to Pro (…), visit … to purchase more credits or try again at Nov 28th, 2026 12:35 AM.
//   You’ve hit your usage limit. … try again at 3:28 PM.              (source: the same day)
//   exceeded retry limit, last status: 429 Too Many Requests            (recorded: a plain 429)
//   rate limit exceeded: Rate limit reached for gpt-5 … Please try again in 1.5s.   (response.failed)
//   We’re currently experiencing high demand, which may cause temporary errors.   (recorded: an HTTP 500)
//   stream disconnected before completion: error sending request       (recorded: a dropped stream)
//   stream disconnected before completion: The model failed to answer. (response.failed server_error)
//   Connection failed: error sending request …
//
// "Quota exceeded. Check your plan and billing details." (recorded: response.failed
// insufficient_quota) is NOT a limit: waiting does not refill an API account's credit, a person
// has to. A 401 is not one either (the translator makes it fatal); a 400 is an ordinary failure.

const USAGE = /You['’]ve (?:hit|reached) your usage limit|usage_limit_reached/i;
const RATE = /^rate limit exceeded\b/i;
const STATUS = /(?:exceeded retry limit, last status|unexpected status):? (\d{3})\b/i;
const OVERLOADED = /We['’]re currently experiencing high demand|server_is_overloaded|slow_down/i;
const CONNECTION = /^(?:stream disconnected before completion|Connection failed)\b/i;

/**
 * The limit one Codex error message reports, or null. `now` (ms) turns Codex's local wall-clock
 * and relative reset times into an instant.
 */
export function codexLimit(message: string, source: string, now: number): AgentLimit | null {
  const text = message.trim();
  const status = Number(STATUS.exec(text)?.[1] ?? NaN);
  let kind: LimitKind | null = null;
  if (USAGE.test(text)) kind = 'usage';
  else if (status === 429 || RATE.test(text)) kind = 'rate';
  else if (OVERLOADED.test(text) || status === 503 || status === 529) kind = 'overloaded';
  else if (status >= 500 && status <= 599) kind = 'server';
  else if (CONNECTION.test(text)) kind = 'connection';
  if (kind === null) return null;
  const resetsAt = kind === 'usage' || kind === 'rate' ? codexResetTime(text, now) : null;
  const first = text.split('\n')[0] ?? '';
  return {
    kind,
    resetsAt,
    source,
    message: `Codex: ${first.length > 200 ? `${first.slice(0, 199)}…` : first}`,
  };
}

const RESETS_AT_FIELD = /"resets_at"\s*:\s*(\d{9,11})/;
const RESETS_IN_FIELD = /"resets_in_seconds"\s*:\s*(\d+)/;
/** `try again at 3:28 PM` (today, or tomorrow when that has passed) or `at Aug 8th, 2026 12:30 PM`. */
const AT =
  /try again at ((?:([A-Z][a-z]{2}) (\d{1,2})(?:st|nd|rd|th)?, (\d{4}) )?(\d{1,2}):(\d{2}) ?([AP]M))/i;
/** `try again in 2h 15m`, `in 3 days 6 hours 57 minutes`, `in 45 minutes`, `in 1.5s`. */
const IN =
  /try again in ((?:\d+(?:\.\d+)?\s*(?:days?|d|hours?|hrs?|h|minutes?|mins?|m|seconds?|secs?|s)\b[\s,]*(?:and\s+)?)+)/i;
const UNIT_MS: [RegExp, number][] = [
  [/^d/, 86_400_000],
  [/^h/, 3_600_000],
  [/^m/, 60_000],
  [/^s/, 1000],
];

/** When the limit resets as ISO 8601, from the JSON fields or the words of the message. */
export function codexResetTime(text: string, now: number): string | null {
  const at = Number(RESETS_AT_FIELD.exec(text)?.[1] ?? NaN);
  if (Number.isFinite(at)) return new Date(at * 1000).toISOString();
  const inSeconds = Number(RESETS_IN_FIELD.exec(text)?.[1] ?? NaN);
  if (Number.isFinite(inSeconds)) return new Date(now + inSeconds * 1000).toISOString();
  const relative = IN.exec(text)?.[1];
  if (relative !== undefined) {
    let ms = 0;
    for (const part of relative.matchAll(/(\d+(?:\.\d+)?)\s*([a-z]+)/gi)) {
      const unit = UNIT_MS.find(([pattern]) => pattern.test((part[2] ?? '').toLowerCase()));
      if (unit) ms += Number(part[1]) * unit[1];
    }
    return ms > 0 ? new Date(now + Math.ceil(ms)).toISOString() : null;
  }
  const clock = AT.exec(text);
  return clock ? wallClock(clock, now) : null;
}

/** Codex prints the reset in the machine's local time zone, as ralphtool reads it too. */
function wallClock(match: RegExpExecArray, now: number): string | null {
  const [, , month, day, year, hour, minute, meridiem] = match;
  let h = Number(hour) % 12;
  if ((meridiem ?? '').toUpperCase() === 'PM') h += 12;
  if (month !== undefined && day !== undefined && year !== undefined) {
    const parsed = Date.parse(`${month} ${day}, ${year} ${h}:${minute}:00`);
    return Number.isFinite(parsed) ? new Date(parsed).toISOString() : null;
  }
  const date = new Date(now);
  date.setHours(h, Number(minute), 0, 0);
  // A time of day already past means tomorrow's (Codex names the date otherwise).
  if (date.getTime() <= now) date.setDate(date.getDate() + 1);
  return date.toISOString();
}
