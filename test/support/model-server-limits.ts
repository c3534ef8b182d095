// The API answers that make Claude Code report a limit, as the real API sends them, and the
// environment in which Claude Code reads them as a claude.ai subscriber would.
import type { Script, ScriptedError, ScriptRequest } from './model-server.js';

/**
 * A claude.ai subscription's usage window is spent: 429 with the unified-limit headers,
 * status `rejected`, resetting at `resetAt` (Unix seconds). Claude Code does not retry it
 * for a subscriber; `x-should-retry: false` is what the API sends with it.
 */
export function usageLimit429(resetAt: number): ScriptedError {
  const reset = String(resetAt);
  return {
    error: {
      status: 429,
      type: 'rate_limit_error',
      message: "This request would exceed your account's rate limit. Please try again later.",
    },
    headers: {
      'anthropic-ratelimit-unified-status': 'rejected',
      'anthropic-ratelimit-unified-reset': reset,
      'anthropic-ratelimit-unified-representative-claim': 'five_hour',
      'anthropic-ratelimit-unified-5h-status': 'rejected',
      'anthropic-ratelimit-unified-5h-reset': reset,
      'anthropic-ratelimit-unified-5h-utilization': '1.0',
      'retry-after': String(Math.max(1, resetAt - Math.floor(Date.now() / 1000))),
    },
  };
}

/** 529 overloaded, as the API sends it (Claude Code retries it whatever `x-should-retry` says). */
export function overloaded529(): ScriptedError {
  return {
    error: { status: 529, type: 'overloaded_error', message: 'Overloaded' },
    headers: { 'x-should-retry': null },
  };
}

/** Answers the first `count` main requests with `error`, then hands over to `script`. */
export function failFirst(count: number, error: ScriptedError, script: Script): Script {
  let failed = 0;
  return (request: ScriptRequest) => {
    if (failed < count) {
      failed += 1;
      return error;
    }
    const turn = request.turn - failed;
    return typeof script === 'function' ? script({ ...request, turn }) : script[turn];
  };
}

/**
 * Claude Code logged in to a claude.ai subscription (an OAuth token) rather than using an API
 * key: only then does it read the `anthropic-ratelimit-unified-*` headers and print
 * `rate_limit_event` lines. The scripted server accepts any token.
 */
export function asSubscriber(
  env: Record<string, string | undefined>,
): Record<string, string | undefined> {
  return {
    ...env,
    ANTHROPIC_API_KEY: undefined,
    CLAUDE_CODE_OAUTH_TOKEN: 'sk-ant-oat01-scripted-model-server',
  };
}
