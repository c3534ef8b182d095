import { parseSignal } from '../../src/core/signal.js';
import { describe, expect, it } from 'vitest';
import { CODEX_AUTH_MESSAGE, createCodexTranslator } from '../../src/agents/codex-translator.js';
import { createCommandTranslator } from '../../src/agents/command-translator.js';
import type { AgentEvent, StreamTranslator } from '../../src/agents/types.js';

function feed(translator: StreamTranslator, lines: readonly (string | object)[]): AgentEvent[] {
  return lines.flatMap((line) =>
    translator.push(typeof line === 'string' ? line : JSON.stringify(line), false),
  );
}

const command = (id: string, status: string, extra: object = {}): object => ({
  id,
  type: 'command_execution',
  command: "bash -lc 'npm test'",
  aggregated_output: '',
  exit_code: null,
  status,
  ...extra,
});

describe('codex translator', () => {
  it('translates a turn into messages, tools and a result', () => {
    const t = createCodexTranslator({ elapsedMs: () => 5000 });
    const events = feed(t, [
      { type: 'thread.started', thread_id: '0199a213-81c0-7800-8aa1-bbab2a035a53' },
      { type: 'turn.started' },
      { type: 'item.completed', item: { id: 'item_0', type: 'reasoning', text: '**Planning**' } },
      { type: 'item.started', item: command('item_1', 'in_progress') },
      {
        type: 'item.completed',
        item: command('item_1', 'completed', { aggregated_output: '<promise>COMPLETE</promise>' }),
      },
      {
        type: 'item.completed',
        item: {
          id: 'item_2',
          type: 'file_change',
          changes: [
            { path: 'src/app.js', kind: 'update' },
            { path: 'src/new.js', kind: 'add' },
          ],
          status: 'completed',
        },
      },
      { type: 'item.updated', item: { id: 'item_3', type: 'todo_list', items: [] } },
      { type: 'item.completed', item: { id: 'item_4', type: 'agent_message', text: 'Done.' } },
      {
        type: 'item.completed',
        item: { id: 'item_5', type: 'agent_message', text: '<promise>FAILED: no db</promise>' },
      },
      {
        type: 'turn.completed',
        usage: { input_tokens: 24763, cached_input_tokens: 24448, output_tokens: 122 },
      },
    ]);
    expect(events).toEqual([
      { type: 'tool', name: 'shell', summary: "bash -lc 'npm test'" },
      { type: 'tool', name: 'patch', summary: 'update src/app.js, add src/new.js' },
      { type: 'message', text: 'Done.' },
      { type: 'message', text: '<promise>FAILED: no db</promise>' },
      {
        type: 'result',
        turns: 1,
        tokens: { input: 315, output: 122, cacheRead: 24448, cacheWrite: 0 },
        // Codex reports no cost: unknown, not $0.
        costUsd: null,
        durationMs: 5000,
        isError: false,
        text: '<promise>FAILED: no db</promise>',
      },
    ]);
    // The command's output held a signal; only the agent's own message counts.
    expect(t.finish('')).toEqual({
      finalAnswer: '<promise>FAILED: no db</promise>',
      agentError: null,
      fatal: null,
      limit: null,
    });
  });

  it('announces a command completed without a start event', () => {
    const t = createCodexTranslator();
    const events = feed(t, [{ type: 'item.completed', item: command('item_9', 'failed') }]);
    expect(events).toEqual([{ type: 'tool', name: 'shell', summary: "bash -lc 'npm test'" }]);
  });

  it('treats top-level error as a notice and turn.failed as the end with an agent error', () => {
    const t = createCodexTranslator();
    const notice = feed(t, [
      { type: 'error', message: 'stream disconnected before completion; Reconnecting... 1/5' },
      { type: 'error', message: 'unexpected status 400 Bad Request' },
    ]);
    expect(notice).toEqual([
      { type: 'notice', text: expect.stringMatching(/^Codex reconnecting 1\/5/) as unknown },
      { type: 'error', message: 'unexpected status 400 Bad Request', fatal: false },
    ]);
    expect(t.finish('').agentError).toBeNull();

    feed(t, [
      { type: 'turn.failed', error: { message: 'exceeded retry limit, last status: 500' } },
    ]);
    expect(t.finish('')).toMatchObject({
      agentError: expect.stringMatching(/exceeded retry limit/) as unknown,
      fatal: null,
    });
  });

  it('makes an authentication failure fatal', () => {
    const t = createCodexTranslator();
    const events = feed(t, [
      {
        type: 'turn.failed',
        error: { message: 'unexpected status 401 Unauthorized: Missing bearer authentication' },
      },
    ]);
    expect(events).toEqual([
      {
        type: 'error',
        fatal: true,
        message: expect.stringContaining(CODEX_AUTH_MESSAGE) as unknown,
      },
    ]);
    expect(t.finish('').fatal).toMatch(/codex login/);
  });

  it('skips garbage, malformed and truncated lines, and names a line type it does not know', () => {
    const t = createCodexTranslator();
    const events = feed(t, [
      'garbage',
      '{"type":"item.completed","item":{"type":',
      { type: 'session.configured' },
      { type: 'item.completed', item: { id: 'x', type: 'agent_message', text: 42 } },
      { type: 'item.completed' },
      { type: 'thread.started', thread_id: 'x' },
      { type: 'turn.started' },
      { noType: true },
    ]);
    expect(t.push('{"type":"item.completed"', true)).toEqual([]);
    expect(t.push('{"type":"turn.paused"}', true)).toEqual([]);
    expect(events).toEqual([{ type: 'unknown', what: 'session.configured' }]);
    expect(t.finish('')).toMatchObject({ finalAnswer: '', agentError: null, fatal: null });
  });
});

describe('command translator', () => {
  it('makes each non-blank line a message and all of stdout the answer', () => {
    const t = createCommandTranslator();
    const events = feed(t, ['working', '', '<promise>COMPLETE</promise>']);
    expect(events).toEqual([
      { type: 'message', text: 'working' },
      { type: 'message', text: '<promise>COMPLETE</promise>' },
    ]);
    expect(t.finish('').finalAnswer).toBe('working\n\n<promise>COMPLETE</promise>\n');
  });

  it('keeps only the end of a long stdout', () => {
    const t = createCommandTranslator({ maxAnswerChars: 100 });
    for (let i = 0; i < 1000; i += 1) t.push(`line ${i}`, false);
    t.push('<promise>COMPLETE</promise>', false);
    const answer = t.finish('').finalAnswer;
    // The kept end, plus at most the last signal carried over from the part cut away.
    expect(answer.length).toBeLessThanOrEqual(100 + '<promise>COMPLETE</promise>\n'.length);
    expect(answer).not.toContain('line 1\n');
    expect(answer.endsWith('<promise>COMPLETE</promise>\n')).toBe(true);
  });

  it('keeps a signal that is followed by more output than the kept end', () => {
    const t = createCommandTranslator({ maxAnswerChars: 100 });
    t.push('<promise>COMPLETE</promise>', false);
    for (let i = 0; i < 1000; i += 1) t.push(`trailing log line ${i}`, false);
    expect(parseSignal(t.finish('').finalAnswer)).toEqual({ kind: 'complete' });

    const later = createCommandTranslator({ maxAnswerChars: 100 });
    later.push('<promise>COMPLETE</promise>', false);
    for (let i = 0; i < 1000; i += 1) later.push(`more ${i}`, false);
    later.push('<promise>FAILED: changed my mind</promise>', false);
    expect(parseSignal(later.finish('').finalAnswer)).toEqual({
      kind: 'failed',
      reason: 'changed my mind',
    });
  });
});

describe('Codex reconnect notices are no progress', () => {
  // As users recorded them from `codex exec --json` (openai/codex#32984, nexu-io/open-design#2268,
  // GuDaStudio/codexmcp#22, preset-io/agor#1989).
  const recorded = [
    'Reconnecting... 1/5 (stream disconnected before completion: ...)',
    'Reconnecting... 2/5 (stream disconnected before completion: Connection reset by peer (os error 54))',
    'Reconnecting... 1/5 (stream disconnected before completion: Transport error: network error: error decoding response body)',
    'Reconnecting... 2/5 (stream disconnected before completion: websocket closed by server before response.completed)',
    'Reconnecting... 2/5 (timeout waiting for child process to exit)',
    'stream disconnected before completion; Reconnecting... 1/5',
  ].map((message) => JSON.stringify({ type: 'error', message }));

  it('says a Reconnecting line is no progress, and every other line is', () => {
    const t = createCodexTranslator();
    for (const line of recorded) expect(t.isProgress?.(line), line).toBe(false);
    const progress = [
      {
        type: 'item.completed',
        item: { id: 'i1', type: 'agent_message', text: 'Reconnecting... 1/5 is what Codex prints' },
      },
      { type: 'turn.failed', error: { message: 'Reconnecting... 5/5 exceeded' } },
      { type: 'error', message: 'unexpected status 400' },
      { type: 'turn.completed', usage: { input_tokens: 1, output_tokens: 1 } },
    ].map((l) => JSON.stringify(l));
    for (const line of progress) expect(t.isProgress?.(line), line).toBe(true);
    expect(t.isProgress?.('Reconnecting... 1/5 (not json)')).toBe(true);
  });

  it('shows each reconnect as a notice, not an error', () => {
    const events = feed(createCodexTranslator(), [...recorded.slice(0, 2), recorded[5] ?? '']);
    expect(events).toEqual([
      {
        type: 'notice',
        text: 'Codex reconnecting 1/5: stream disconnected before completion: ...',
      },
      {
        type: 'notice',
        text: 'Codex reconnecting 2/5: stream disconnected before completion: Connection reset by peer (os error 54)',
      },
      { type: 'notice', text: 'Codex reconnecting 1/5: stream disconnected before completion' },
    ]);
  });
});
