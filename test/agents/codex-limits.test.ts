// Which of Codex's reports make a limit. The messages are Codex's own, taken from its source
// (openai/codex codex-rs/core/src/error.rs: UsageLimitReachedError, RetryLimitReachedError,
// UnexpectedResponseError, InternalServerError, Stream) and from issues quoting `codex exec
// --json` output; NOT recorded from a binary (@openai/codex is not installed here).
import { describe, expect, it } from 'vitest';
import { createCodexTranslator } from '../../src/agents/codex-translator.js';
import type { TranslatedOutcome } from '../../src/agents/types.js';

// 10:00 local time: Codex prints reset times in the local zone, and so does this test.
const NOW = new Date(2026, 10, 23, 10, 0, 0, 0).getTime();
const local = (...args: [number, number, number, number, number]): string =>
  new Date(...args).toISOString();

function run(lines: readonly object[]): TranslatedOutcome {
  const t = createCodexTranslator({ now: () => NOW });
  for (const line of lines) t.push(JSON.stringify(line), false);
  return t.finish('', 1);
}

/** What `codex exec --json` prints when a turn ends at an error: `error`, then `turn.failed`. */
const failedWith = (message: string): object[] => [
  { type: 'thread.started', thread_id: '0199a213-81c0-7800-8aa1-bbab2a035a53' },
  { type: 'turn.started' },
  { type: 'error', message },
  { type: 'turn.failed', error: { message } },
];

const PLUS =
  "You've hit your usage limit. Upgrade to Pro (https://openai.com/chatgpt/pricing), visit https://chatgpt.com/codex/settings/usage to purchase more credits";

describe('codex limits', () => {
  it.each([
    [`${PLUS} or try again at 3:28 PM.`, local(2026, 10, 23, 15, 28)],
    // A time of day already past is tomorrow's.
    [`${PLUS} or try again at 9:05 AM.`, local(2026, 10, 24, 9, 5)],
    [
      "You've hit your usage limit. Try again at Aug 8th, 2026 12:30 PM.",
      local(2026, 7, 8, 12, 30),
    ],
    [
      "You've hit your usage limit. To get more access now, send a request to your admin or try again at Dec 1st, 2026 1:02 AM.",
      local(2026, 11, 1, 1, 2),
    ],
    ["You've hit your usage limit. Try again later.", null],
    [
      "You've hit your usage limit. To get more access now, send a request to your admin or try again in 3 days 6 hours 57 minutes.",
      new Date(NOW + ((3 * 24 + 6) * 60 + 57) * 60_000).toISOString(),
    ],
    [
      "You've reached your usage limit. Try again in 2h 15m.",
      new Date(NOW + 135 * 60_000).toISOString(),
    ],
    [
      'unexpected status 429 Too Many Requests: {"error":{"type":"usage_limit_reached","message":"The usage limit has been reached","plan_type":"plus","resets_in_seconds":3600}}',
      new Date(NOW + 3_600_000).toISOString(),
    ],
    [
      'unexpected status 429 Too Many Requests: {"error":{"type":"usage_limit_reached","resets_at":1795453055}}',
      '2026-11-23T16:57:35.000Z',
    ],
  ])('usage limit: %s', (message, resetsAt) => {
    expect(run(failedWith(message)).limit).toEqual({
      kind: 'usage',
      resetsAt,
      source: 'codex turn.failed',
      message: `Codex: ${message.length > 200 ? `${message.slice(0, 199)}…` : message}`,
    });
  });

  it.each([
    ['exceeded retry limit, last status: 429 Too Many Requests, request id: req_8f2c', 'rate'],
    ['unexpected status 429 Too Many Requests: Rate limit reached for requests', 'rate'],
    ['exceeded retry limit, last status: 500 Internal Server Error', 'server'],
    ['exceeded retry limit, last status: 502 Bad Gateway', 'server'],
    ['exceeded retry limit, last status: 503 Service Unavailable', 'overloaded'],
    ["We're currently experiencing high demand, which may cause temporary errors.", 'overloaded'],
    ['stream disconnected before completion: error decoding response body', 'connection'],
    [
      'Connection failed: error sending request for url (https://chatgpt.com/backend-api/codex/responses)',
      'connection',
    ],
  ])('%s: %s', (message, kind) => {
    expect(run(failedWith(message)).limit).toMatchObject({
      kind,
      resetsAt: null,
      source: 'codex turn.failed',
    });
  });

  it('a top-level error alone (Codex ended without turn.failed) is a limit too', () => {
    expect(
      run([{ type: 'error', message: "You've hit your usage limit. Try again later." }]).limit,
    ).toMatchObject({
      kind: 'usage',
      source: 'codex error',
    });
  });
});

describe('codex limits: only its own error reports count', () => {
  const usage = "You've hit your usage limit. Try again at 3:28 PM.";

  it('a reconnect notice is Codex still trying, not a limit', () => {
    expect(
      run([
        {
          type: 'error',
          message: 'Reconnecting... 1/5 (exceeded retry limit, last status: 429 Too Many Requests)',
        },
        {
          type: 'error',
          message: 'Reconnecting... 2/5 (stream disconnected before completion: eof)',
        },
      ]).limit,
    ).toBeNull();
  });

  it("the agent's words, a command's output or an item error mentioning limits are not a limit", () => {
    const outcome = run([
      { type: 'item.completed', item: { id: 'item_0', type: 'error', message: usage } },
      {
        type: 'item.completed',
        item: {
          id: 'item_1',
          type: 'command_execution',
          command: 'curl api',
          aggregated_output: `429 Too Many Requests\n${usage}`,
          exit_code: 0,
          status: 'completed',
        },
      },
      { type: 'item.completed', item: { id: 'item_2', type: 'agent_message', text: usage } },
      {
        type: 'turn.completed',
        usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 5 },
      },
    ]);
    expect(outcome.limit).toBeNull();
  });

  it('a turn that completes after a limit error is not limited', () => {
    expect(
      run([
        { type: 'error', message: usage },
        {
          type: 'turn.completed',
          usage: { input_tokens: 10, cached_input_tokens: 0, output_tokens: 5 },
        },
      ]).limit,
    ).toBeNull();
  });

  it('other failures are not limits: billing quota, context window, a refused login (fatal)', () => {
    expect(
      run(failedWith('Quota exceeded. Check your plan and billing details.')).limit,
    ).toBeNull();
    expect(
      run(
        failedWith(
          "Codex ran out of room in the model's context window. Start a new conversation.",
        ),
      ).limit,
    ).toBeNull();
    const auth = run(
      failedWith('unexpected status 401 Unauthorized: Missing bearer authentication'),
    );
    expect(auth.fatal).toMatch(/not logged in/);
    expect(auth.limit).toBeNull();
  });
});
