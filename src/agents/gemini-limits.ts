import type { LimitKind } from '../core/events.js';
import type { AgentLimit } from './types.js';

// How Gemini CLI (`gemini -p … --output-format stream-json`) says it stopped at a limit or a
// transient API failure: only in the `error.message` of its final `result` with
// `"status":"error"`, after its own retries (10 attempts by default, `general.maxAttempts`).
// Learnt by driving the real binary (0.61.0) against a local server, see
// test/fixtures/gemini-stream/README.md. The messages, as recorded:
//
//   [API Error: You exceeded your current quota, … Please retry in 43.5s.\nSuggested retry after 43s.]\nPlease wait and try again later. …
//   [API Error: You have exhausted your daily quota on this model.]\nPlease wait and try again later. …
//   [API Error: {"error":{"code":500,"message":"Internal error encountered.","status":"INTERNAL"}}]
//   [API Error: exception TypeError: fetch failed sending request]
//
// A 429's text is Gemini CLI's own wording for the API's RESOURCE_EXHAUSTED; text the model
// wrote or a tool printed never reaches here.

const DAILY = /exhausted your daily quota/i;
const RATE =
  /"code":\s*429\b|RESOURCE_EXHAUSTED|exceeded your current quota|Please wait and try again later|Possible quota limitations/i;
const OVERLOADED = /"code":\s*503\b|"status":\s*"UNAVAILABLE"|model is overloaded/i;
const SERVER = /"code":\s*5\d\d\b|"status":\s*"INTERNAL"/i;
const CONNECTION =
  /fetch failed|ECONNREFUSED|ECONNRESET|ETIMEDOUT|ENOTFOUND|EAI_AGAIN|UND_ERR_CONNECT_TIMEOUT/i;
/** `Please retry in 43.5s.` (the API's words) or `Suggested retry after 43s.` (Gemini CLI's). */
const RETRY_IN = /(?:Please retry in|Suggested retry after) (\d+(?:\.\d+)?)(ms|s)\b/i;

/**
 * The limit one error `result` reports, or null (an authentication failure is never a limit:
 * it is checked first, by the translator). `now` (ms) turns "retry in 43s" into an instant.
 */
export function geminiLimit(message: string, now: number): AgentLimit | null {
  let kind: LimitKind | null = null;
  if (DAILY.test(message)) kind = 'usage';
  else if (RATE.test(message)) kind = 'rate';
  else if (OVERLOADED.test(message)) kind = 'overloaded';
  else if (SERVER.test(message)) kind = 'server';
  else if (CONNECTION.test(message)) kind = 'connection';
  if (kind === null) return null;
  return {
    kind,
    // A daily quota resets at midnight Pacific time, which Gemini CLI does not say: unknown.
    resetsAt: kind === 'rate' ? retryAt(message, now) : null,
    source: 'gemini result',
    message: `Gemini CLI: ${firstLine(message)}`,
  };
}

function retryAt(message: string, now: number): string | null {
  const match = RETRY_IN.exec(message);
  if (!match) return null;
  const ms = Number(match[1]) * (match[2] === 'ms' ? 1 : 1000);
  return Number.isFinite(ms) ? new Date(now + Math.ceil(ms)).toISOString() : null;
}

function firstLine(text: string): string {
  const line = text.trim().split('\n')[0]?.trim() ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
