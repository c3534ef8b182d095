import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CLAUDE_AUTH_MESSAGE,
  CLAUDE_ROOT_MESSAGE,
  createClaudeTranslator,
} from '../../src/agents/claude-translator.js';
import type { AgentEvent, StreamTranslator } from '../../src/agents/types.js';

const fixture = (name: string): string =>
  readFileSync(new URL(`../fixtures/agents/${name}`, import.meta.url), 'utf8');

function feed(translator: StreamTranslator, lines: readonly (string | object)[]): AgentEvent[] {
  return lines.flatMap((line) =>
    translator.push(typeof line === 'string' ? line : JSON.stringify(line), false),
  );
}

const session = { session_id: '5b0c7a1e-3f2d-4c8e-9d41-0a2b7c1e9f00' };
const init = {
  type: 'system',
  subtype: 'init',
  cwd: '/repo',
  tools: ['Bash', 'Edit', 'Read', 'Write'],
  model: 'claude-sonnet-4-5',
  permissionMode: 'bypassPermissions',
  ...session,
};
const assistant = (content: object[], extra: object = {}, id = 'msg_01'): object => ({
  type: 'assistant',
  message: {
    id,
    type: 'message',
    role: 'assistant',
    model: 'claude-sonnet-4-5',
    content,
    stop_reason: null,
    usage: { input_tokens: 3, output_tokens: 12 },
  },
  parent_tool_use_id: null,
  ...session,
  ...extra,
});
const toolResult = (content: unknown): object => ({
  type: 'user',
  message: { role: 'user', content: [{ tool_use_id: 'toolu_01', type: 'tool_result', content }] },
  parent_tool_use_id: null,
  ...session,
});
const result = (extra: object = {}): object => ({
  type: 'result',
  subtype: 'success',
  is_error: false,
  duration_ms: 48211,
  duration_api_ms: 45012,
  num_turns: 7,
  result: 'All tasks done.\n<promise>COMPLETE</promise>',
  total_cost_usd: 0.41235,
  usage: {
    input_tokens: 21,
    cache_creation_input_tokens: 10448,
    cache_read_input_tokens: 88123,
    output_tokens: 1893,
    server_tool_use: { web_search_requests: 0 },
  },
  permission_denials: [],
  ...session,
  ...extra,
});

describe('claude translator', () => {
  it('turns text, tool_use and result into events and reads the result text as the answer', () => {
    const t = createClaudeTranslator({ cwd: '/repo' });
    const events = feed(t, [
      init,
      assistant([{ type: 'thinking', thinking: 'Let me look at tasks.md', signature: 'abc' }]),
      assistant([{ type: 'text', text: "I'll add the dependency." }]),
      assistant([
        {
          type: 'tool_use',
          id: 'toolu_01',
          name: 'Write',
          input: { file_path: '/repo/src/auth.ts', content: 'export {}' },
        },
      ]),
      toolResult('File created successfully at: /repo/src/auth.ts'),
      assistant([
        {
          type: 'tool_use',
          id: 'toolu_02',
          name: 'Bash',
          input: { command: 'npm test\n  -- --run' },
        },
      ]),
      result(),
    ]);
    expect(events).toEqual([
      { type: 'message', text: "I'll add the dependency." },
      { type: 'tool', name: 'Write', summary: 'src/auth.ts' },
      { type: 'tool', name: 'Bash', summary: 'npm test -- --run' },
      {
        type: 'result',
        turns: 7,
        tokens: { input: 21, output: 1893, cacheRead: 88123, cacheWrite: 10448 },
        costUsd: 0.41235,
        durationMs: 48211,
        isError: false,
        text: 'All tasks done.\n<promise>COMPLETE</promise>',
      },
    ]);
    expect(t.finish('')).toEqual({
      finalAnswer: 'All tasks done.\n<promise>COMPLETE</promise>',
      agentError: null,
      fatal: null,
      limit: null,
    });
  });

  it('never takes text from tool results as the answer', () => {
    const t = createClaudeTranslator();
    const events = feed(t, [
      assistant([{ type: 'text', text: 'Reading the prompt file.' }]),
      toolResult('Signals: <promise>COMPLETE</promise>'),
      toolResult([{ type: 'text', text: '<promise>COMPLETE</promise>' }]),
    ]);
    expect(events).toEqual([{ type: 'message', text: 'Reading the prompt file.' }]);
    expect(t.finish('').finalAnswer).toBe('Reading the prompt file.');
  });

  it('falls back to the last assistant text of the main agent when there is no result', () => {
    const t = createClaudeTranslator();
    feed(t, [
      assistant([{ type: 'text', text: 'First.' }], {}, 'msg_a'),
      assistant([{ type: 'text', text: 'Done: <promise>COMPLETE</promise>' }], {}, 'msg_b'),
      assistant([{ type: 'text', text: 'and more of the same message' }], {}, 'msg_b'),
      assistant([{ type: 'text', text: '<promise>FAILED: sub-agent</promise>' }], {
        parent_tool_use_id: 'toolu_task',
      }),
    ]);
    expect(t.finish('').finalAnswer).toBe(
      'Done: <promise>COMPLETE</promise>\nand more of the same message',
    );
  });

  it('treats is_error as an agent error whatever the subtype, and error subtypes too', () => {
    const t = createClaudeTranslator();
    const events = feed(t, [result({ is_error: true, result: 'API Error: 529 Overloaded' })]);
    expect(events.map((e) => e.type)).toEqual(['result', 'error']);
    expect(events[0]).toMatchObject({ type: 'result', isError: true });
    expect(events[1]).toMatchObject({ type: 'error', fatal: false });
    expect(t.finish('').agentError).toBe(
      'Claude Code reported an error: API Error: 529 Overloaded',
    );

    const maxTurns = createClaudeTranslator();
    feed(maxTurns, [
      assistant([{ type: 'text', text: '<promise>COMPLETE</promise>' }]),
      { type: 'result', subtype: 'error_max_turns', is_error: false, num_turns: 50, ...session },
    ]);
    const outcome = maxTurns.finish('');
    expect(outcome.agentError).toMatch(/error_max_turns/);
    expect(outcome.fatal).toBeNull();
  });

  it('skips garbage, known types it does not read and truncated lines; names schema mismatches', () => {
    const t = createClaudeTranslator();
    const events = feed(t, [
      '',
      'not json at all',
      '{"type":"assistant","message":',
      '[1,2,3]',
      'null',
      '\u0000\u0000',
      { type: 'stream_event', event: { type: 'content_block_delta' } },
      { type: 'assistant', message: { content: 'a string, not blocks' } },
      { type: 'result', num_turns: 'seven' },
      assistant([
        { type: 'image', source: {} },
        { type: 'text', text: 'still here' },
      ]),
    ]);
    expect(t.push(JSON.stringify(result()).slice(0, 50), true)).toEqual([]);
    expect(events).toEqual([
      { type: 'unknown', what: 'assistant (unexpected fields)' },
      { type: 'unknown', what: 'result (unexpected fields)' },
      { type: 'message', text: 'still here' },
    ]);
    expect(t.finish('').finalAnswer).toBe('still here');
  });

  it('reads a very long text block whole', () => {
    const t = createClaudeTranslator();
    const long = `${'word '.repeat(200_000)}<promise>COMPLETE</promise>`;
    feed(t, [assistant([{ type: 'text', text: long }])]);
    expect(t.finish('').finalAnswer).toBe(long);
  });

  it('stops reading at the result', () => {
    const t = createClaudeTranslator();
    feed(t, [result({ result: '<promise>COMPLETE</promise>' })]);
    const after = feed(t, [assistant([{ type: 'text', text: '<promise>FAILED: late</promise>' }])]);
    expect(after).toEqual([]);
    expect(t.finish('').finalAnswer).toBe('<promise>COMPLETE</promise>');
  });

  it('makes a refused API key fatal (recorded from the real binary)', () => {
    const t = createClaudeTranslator();
    const events = feed(t, fixture('claude-invalid-api-key.ndjson').split('\n'));
    const fatal = events.filter((e) => e.type === 'error' && e.fatal);
    expect(fatal).toHaveLength(1);
    const outcome = t.finish('');
    expect(outcome.fatal).toContain(CLAUDE_AUTH_MESSAGE);
    expect(outcome.fatal).toMatch(/ANTHROPIC_API_KEY/);
    expect(outcome.agentError).toMatch(/Invalid API key/);
  });

  it('reads a stop at --max-budget-usd as the budget reached, not an agent error (recorded from the real binary)', () => {
    const t = createClaudeTranslator();
    const events = feed(t, fixture('claude-max-budget.ndjson').split('\n'));
    // Its cost still counts; no warning of an error: the budget is not the agent's failure.
    const result = events.find((e) => e.type === 'result');
    expect(result).toMatchObject({ type: 'result', costUsd: 0.01605, isError: true });
    expect(events.filter((e) => e.type === 'error')).toEqual([]);
    const outcome = t.finish('', 1);
    expect(outcome.budgetReached).toBe('Reached maximum budget ($0.012)');
    expect(outcome.agentError).toBeNull();
    expect(outcome.fatal).toBeNull();
  });

  it('makes "Not logged in" fatal (recorded from the real binary)', () => {
    const t = createClaudeTranslator();
    feed(t, fixture('claude-not-logged-in.ndjson').split('\n'));
    expect(t.finish('').fatal).toMatch(/log in.*Not logged in · Please run \/login/);
  });

  it('makes a 401 retry notice fatal at once, before Claude Code gives up', () => {
    const t = createClaudeTranslator();
    const lines = fixture('claude-auth-retry.ndjson').split('\n');
    const firstRetry = lines.findIndex((l) => l.includes('api_retry'));
    const events = feed(t, lines.slice(0, firstRetry + 1));
    expect(events).toEqual([
      {
        type: 'error',
        fatal: true,
        message: expect.stringContaining(CLAUDE_AUTH_MESSAGE) as unknown,
      },
    ]);
  });

  it('does not mistake the agent talking about API keys for an auth failure', () => {
    const t = createClaudeTranslator();
    feed(t, [
      assistant([{ type: 'text', text: 'The handler now returns "Invalid API key" on 401.' }]),
      result({ result: 'Fixed the Invalid API key message. <promise>COMPLETE</promise>' }),
    ]);
    expect(t.finish('').fatal).toBeNull();
  });

  it('explains the root refusal seen on stderr', () => {
    const t = createClaudeTranslator();
    const outcome = t.finish(fixture('claude-root-refusal.stderr'));
    expect(outcome.fatal).toBe(CLAUDE_ROOT_MESSAGE);
    expect(outcome.fatal).toMatch(/IS_SANDBOX=1/);
  });
});

describe('Claude Code retrying the API (system / api_retry)', () => {
  // Recorded from the real `claude` binary against a local server answering 429 (with
  // retry-after: 1 and CLAUDE_CODE_MAX_RETRIES=2), and against a port nobody listens on.
  const rateLimited = fixture('claude-rate-limit-retry.ndjson').split('\n');
  const unreachable = fixture('claude-connection-retry.ndjson').split('\n');

  it('shows each retry as a notice saying the status, the count and the delay', () => {
    const t = createClaudeTranslator();
    // The last notice is the end (a limit, waited out); the retries come before it.
    const notices = feed(t, rateLimited)
      .filter((e) => e.type === 'notice')
      .slice(0, -1);
    expect(notices).toEqual([
      { type: 'notice', text: 'API 429 (rate_limit) — Claude Code retrying 1/2 in 1s' },
      { type: 'notice', text: 'API 429 (rate_limit) — Claude Code retrying 2/2 in 1.1s' },
    ]);
    // The retries are no failure: the result after them decides.
    expect(t.finish('').agentError).toMatch(/429/);
    expect(t.finish('').fatal).toBeNull();
  });

  it('says the API could not be reached when the retry has no HTTP status', () => {
    const notices = feed(createClaudeTranslator(), unreachable)
      .filter((e) => e.type === 'notice')
      .slice(0, -1);
    expect(notices).toEqual([
      { type: 'notice', text: 'API unreachable — Claude Code retrying 1/1 in 0.6s' },
    ]);
  });

  it('counts a retry notice as no progress, everything else as progress', () => {
    const t = createClaudeTranslator();
    const retries = [...rateLimited, ...unreachable].filter((l) => l.includes('"api_retry"'));
    expect(retries).toHaveLength(3);
    for (const line of retries) expect(t.isProgress?.(line)).toBe(false);
    const others = [...rateLimited, ...unreachable].filter(
      (l) => l.trim() !== '' && !l.includes('"api_retry"'),
    );
    expect(others.length).toBeGreaterThan(3);
    for (const line of others) expect(t.isProgress?.(line)).toBe(true);
    // The agent writing about api_retry is work, and so is a line that is not JSON.
    const talk = JSON.stringify(assistant([{ type: 'text', text: 'grep api_retry in cli.js' }]));
    expect(t.isProgress?.(talk)).toBe(true);
    expect(t.isProgress?.('api_retry {not json')).toBe(true);
    // A tool's result that quotes a retry line (the agent grepping a log) is work too.
    const echoed = JSON.stringify({
      type: 'user',
      message: { role: 'user', content: [{ type: 'tool_result', content: retries[0] }] },
    });
    expect(t.isProgress?.(echoed)).toBe(true);
  });

  it('keeps a 401 retry fatal rather than a notice', () => {
    const lines = fixture('claude-auth-retry.ndjson').split('\n');
    const events = feed(createClaudeTranslator(), lines);
    expect(events.filter((e) => e.type === 'notice')).toEqual([]);
    expect(events.some((e) => e.type === 'error' && e.fatal)).toBe(true);
  });
});
