import type { AgentLimit } from './types.js';

// How OpenCode (`opencode run --format json`) reports an API failure it gave up on, learnt by
// driving the real binary (1.18.33) against a local server (test/fixtures/opencode-stream/):
// one line `{"type":"error",…,"error":{"name":"APIError","data":{"message":…,"statusCode":429,
// "isRetryable":true,"responseHeaders":{…,"retry-after":"1"},"responseBody":…}}}` after its
// own retries (6 requests for a 429 or a 500), then exit 1. An API it cannot reach is
// `"message":"Cannot connect to API: Unable to connect. …","isRetryable":true` with no status
// (and OpenCode did not exit by itself). Only that line counts: never text
// the model wrote or a tool returned.

export interface ApiFailure {
  /** HTTP status of the last answer; null when OpenCode names none. */
  statusCode: number | null;
  message: string;
  /** The answer's headers as OpenCode reports them (lower-case names). */
  headers: Record<string, string>;
  /** The answer's body text, when reported (for the provider's error type). */
  body: string;
  /** When OpenCode printed the line (Unix ms): what `retry-after` counts from. */
  at: number | null;
}

/** The limit an OpenCode `error` line reports; null for any other failure (401 stays fatal). */
export function openCodeLimit(failure: ApiFailure): AgentLimit | null {
  const { statusCode: status } = failure;
  const what = firstLine(failure.message);
  if (status === 429) {
    const resetsAt = retryAfter(failure.headers['retry-after'], failure.at);
    return {
      kind: 'rate',
      resetsAt,
      source: 'opencode error (API 429)',
      message: `the API refused OpenCode's requests with 429 (rate limit) after its retries (${what})`,
    };
  }
  if (status === 529 || status === 503 || /overloaded_error/.test(failure.body)) {
    return {
      kind: 'overloaded',
      resetsAt: null,
      source: `opencode error (API ${status ?? 'overloaded'})`,
      message: `the API is overloaded and OpenCode gave up retrying (${what})`,
    };
  }
  if (status !== null && status >= 500 && status <= 599) {
    return {
      kind: 'server',
      resetsAt: null,
      source: `opencode error (API ${status})`,
      message: `the API failed with a server error (${status}) and OpenCode gave up retrying (${what})`,
    };
  }
  // `Cannot connect to API: Unable to connect. Is the computer able to access the url?`
  if (status === null && CONNECTION.test(failure.message)) {
    return {
      kind: 'connection',
      resetsAt: null,
      source: 'opencode error (no connection)',
      message: `OpenCode could not reach the API (${what})`,
    };
  }
  return null;
}

const CONNECTION = /^Cannot connect to API\b|Unable to connect\b/i;

/** `retry-after` in seconds or as an HTTP date, from the moment the line was printed. */
function retryAfter(value: string | undefined, at: number | null): string | null {
  if (value === undefined || value.trim() === '') return null;
  const seconds = Number(value);
  if (Number.isFinite(seconds) && seconds >= 0) {
    return at === null ? null : new Date(at + seconds * 1000).toISOString();
  }
  const date = Date.parse(value);
  return Number.isFinite(date) ? new Date(date).toISOString() : null;
}

function firstLine(text: string): string {
  const line = text.split('\n')[0]?.trim() ?? '';
  return line.length > 200 ? `${line.slice(0, 199)}…` : line;
}
