// Which of Claude Code's reports make a limit: fed with lines the real binary printed
// (test/fixtures/claude-stream, recorded against a local server), and with the look-alikes
// that must never count (text the model wrote, a tool's output, a sub-agent's words).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createClaudeTranslator } from '../../src/agents/claude-translator.js';
import type { AgentEvent, TranslatedOutcome } from '../../src/agents/types.js';

const recorded = (name: string): string[] =>
  readFileSync(new URL(`../fixtures/claude-stream/${name}.jsonl`, import.meta.url), 'utf8')
    .split('\n')
    .filter((line) => line !== '');

function run(lines: readonly (string | object)[]): {
  events: AgentEvent[];
  outcome: TranslatedOutcome;
} {
  const t = createClaudeTranslator();
  const events = lines.flatMap((line) =>
    t.push(typeof line === 'string' ? line : JSON.stringify(line), false),
  );
  return { events, outcome: t.finish('', 1) };
}

const session = { session_id: 'ee9ef300-e62d-4dbf-8e25-3f23dc01a718' };
const assistant = (text: string, extra: object = {}): object => ({
  type: 'assistant',
  message: { id: 'msg_1', role: 'assistant', content: [{ type: 'text', text }] },
  parent_tool_use_id: null,
  ...session,
  ...extra,
});
const toolResult = (content: string): object => ({
  type: 'user',
  message: { role: 'user', content: [{ tool_use_id: 'toolu_1', type: 'tool_result', content }] },
  parent_tool_use_id: null,
  ...session,
});
const result = (extra: object): object => ({
  type: 'result',
  subtype: 'success',
  is_error: false,
  api_error_status: null,
  num_turns: 1,
  result: 'Done.',
  total_cost_usd: 0,
  ...session,
  ...extra,
});
const rateLimitEvent = (info: object): object => ({
  type: 'rate_limit_event',
  rate_limit_info: info,
  uuid: '19525acc-c2c2-4d25-b38d-fc9cca04aa0e',
  ...session,
});

describe('Claude Code limits, from what the real binary printed', () => {
  it.each(['429-subscription-no-retry', '429-subscription'])(
    '%s: a usage limit with the rate_limit_event reset time',
    (name) => {
      const lines = recorded(name);
      const event = JSON.parse(lines.find((l) => l.includes('rate_limit_event')) ?? '{}') as {
        rate_limit_info: { resetsAt: number };
      };
      const { outcome } = run(lines);
      const resetsAt = new Date(event.rate_limit_info.resetsAt * 1000).toISOString();
      expect(outcome.limit).toEqual({
        kind: 'usage',
        resetsAt,
        source: 'claude rate_limit_event',
        message: `Claude Code hit its session limit; it resets at ${resetsAt}`,
      });
      expect(outcome.fatal).toBeNull();
    },
  );

  it.each([
    '429-api-key-unified-no-retry',
    '429-api-key-unified-retries',
    '429-plain-no-retry',
    '429-plain-retries',
  ])('%s: a rate limit without a reset time (API keys get no rate_limit_event)', (name) => {
    const { outcome } = run(recorded(name));
    expect(outcome.limit).toMatchObject({
      kind: 'rate',
      resetsAt: null,
      source: 'claude result (API 429)',
    });
    expect(outcome.limit?.message).toMatch(/429/);
  });

  it.each([
    '429-subscription-no-retry',
    '529-overloaded-max-retries-2',
    'connection-refused-retries',
  ])("%s: the end is a notice in Claude Code's words, not an error (it is waited out)", (name) => {
    const lines = recorded(name);
    const result = JSON.parse(lines.at(-1) ?? '{}') as { result: string };
    const { events, outcome } = run(lines);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    expect(events.at(-1)).toEqual({
      type: 'notice',
      text: `Claude Code stopped: ${result.result}`,
    });
    expect(outcome.agentError).toBe(`Claude Code reported an error: ${result.result}`);
  });

  it('shows each of the ten 429 retries as a notice, not a limit of its own', () => {
    const { events } = run(recorded('429-plain-retries'));
    const notices = events.filter((e) => e.type === 'notice').slice(0, -1);
    expect(notices).toHaveLength(10);
    expect(notices[0]).toEqual({
      type: 'notice',
      text: 'API 429 (rate_limit) — Claude Code retrying 1/10 in 1s',
    });
  });

  it.each(['529-overloaded-retries', '529-overloaded-max-retries-2'])('%s: overloaded', (name) => {
    const { outcome } = run(recorded(name));
    expect(outcome.limit).toMatchObject({
      kind: 'overloaded',
      resetsAt: null,
      source: 'claude result (API 529)',
    });
  });

  it.each(['500-no-retry', '500-max-retries-2'])('%s: a server error', (name) => {
    const { outcome } = run(recorded(name));
    expect(outcome.limit).toMatchObject({
      kind: 'server',
      resetsAt: null,
      source: 'claude result (API 500)',
    });
  });

  it('connection refused: a connection limit', () => {
    const { outcome } = run(recorded('connection-refused-retries'));
    expect(outcome.limit).toMatchObject({
      kind: 'connection',
      resetsAt: null,
      source: 'claude result (no connection)',
      message:
        'Claude Code could not reach the API (API Error: Unable to connect to API (ConnectionRefused))',
    });
  });

  it('allowed_warning on a successful answer: a notice, no limit', () => {
    const { events, outcome } = run(recorded('allowed-warning'));
    expect(outcome.limit).toBeNull();
    expect(outcome.agentError).toBeNull();
    const notices = events.flatMap((e) => (e.type === 'notice' ? [e.text] : []));
    expect(notices).toHaveLength(1);
    expect(notices[0]).toMatch(
      /^Claude Code is near its limit: 92% of the session limit used, resets at 20\d\d-/,
    );
  });
});

describe('Claude Code limits: only its own reports count', () => {
  const limitText = "You've hit your session limit · resets 3pm (UTC)";

  it('an `allowed` rate_limit_event says nothing', () => {
    const { events, outcome } = run([
      rateLimitEvent({ status: 'allowed', resetsAt: 1795453084, rateLimitType: 'five_hour' }),
      result({}),
    ]);
    expect(events.map((e) => e.type)).toEqual(['result']);
    expect(outcome.limit).toBeNull();
  });

  it('the model writing about limits is not a limit', () => {
    const { outcome } = run([
      assistant(`${limitText}\nClaude AI usage limit reached|1750000000\nrate limit exceeded`),
      result({ result: `${limitText} — quoting the docs.\n<promise>COMPLETE</promise>` }),
    ]);
    expect(outcome.limit).toBeNull();
  });

  it('a tool result or a sub-agent mentioning limits is not a limit', () => {
    const { outcome } = run([
      toolResult(`HTTP 429 Too Many Requests: usage limit reached, ${limitText}`),
      assistant(limitText, { parent_tool_use_id: 'toolu_1' }),
      result({}),
    ]);
    expect(outcome.limit).toBeNull();
  });

  it('a successful result whose text looks like the limit text is not a limit', () => {
    const { outcome } = run([result({ result: limitText })]);
    expect(outcome.limit).toBeNull();
  });

  it('an error that is not an API limit is not a limit, even when its text mentions one', () => {
    const { outcome } = run([
      result({
        subtype: 'error_max_turns',
        is_error: true,
        result: 'Stopped after 50 turns while waiting out a rate limit (429)',
      }),
    ]);
    expect(outcome.limit).toBeNull();
    expect(outcome.agentError).toMatch(/error_max_turns/);
  });

  it('a refused key (401) stays fatal, not a limit', () => {
    const { outcome } = run([
      result({
        is_error: true,
        api_error_status: 401,
        result: 'Invalid API key · Fix external API key',
      }),
    ]);
    expect(outcome.fatal).toMatch(/not logged in/);
    expect(outcome.limit).toBeNull();
  });

  it("recognises the limit text only at the start of an error result (older 'usage limit reached|epoch' too)", () => {
    expect(run([result({ is_error: true, result: limitText })]).outcome.limit).toMatchObject({
      kind: 'usage',
      resetsAt: null,
      source: 'claude result',
    });
    expect(
      run([result({ is_error: true, result: 'Claude AI usage limit reached|1750000000' })]).outcome
        .limit,
    ).toMatchObject({ kind: 'usage', resetsAt: '2025-06-15T15:06:40.000Z' });
    expect(
      run([result({ is_error: true, result: `Failed: ${limitText}` })]).outcome.limit,
    ).toBeNull();
  });

  it('a rejected event followed by a successful answer (usage credits took over) is not a limit', () => {
    const { outcome } = run([
      rateLimitEvent({ status: 'rejected', resetsAt: 1795453055, rateLimitType: 'seven_day' }),
      result({}),
    ]);
    expect(outcome.limit).toBeNull();
  });

  it('a rejected event with no result after it (Claude Code ended there) is a limit', () => {
    const { outcome } = run([
      rateLimitEvent({ status: 'rejected', resetsAt: 1795453055, rateLimitType: 'seven_day' }),
    ]);
    expect(outcome.limit).toEqual({
      kind: 'usage',
      resetsAt: '2026-11-23T16:57:35.000Z',
      source: 'claude rate_limit_event',
      message: 'Claude Code hit its weekly limit; it resets at 2026-11-23T16:57:35.000Z',
    });
  });
});
