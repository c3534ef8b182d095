// The OpenCode translator on streams the real `opencode run --format json` (1.18.33) printed
// (test/fixtures/opencode-stream/README.md), and on lines cut from them.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  createOpenCodeTranslator,
  OPENCODE_AUTH_MESSAGE,
} from '../../src/agents/opencode-translator.js';
import type { AgentEvent, StreamTranslator } from '../../src/agents/types.js';
import { parseSignal } from '../../src/core/signal.js';

const FIXTURES = path.resolve('test/fixtures/opencode-stream');
/** Where the success fixture was recorded: its tool paths are inside it. */
const RECORDED_CWD = '/tmp/oc-probe/rec-tools/work';

function recorded(name: string): string[] {
  return readFileSync(path.join(FIXTURES, name), 'utf8')
    .split('\n')
    .filter((line) => line.trim() !== '');
}

function feed(translator: StreamTranslator, lines: readonly (string | object)[]): AgentEvent[] {
  return lines.flatMap((line) =>
    translator.push(typeof line === 'string' ? line : JSON.stringify(line), false),
  );
}

const ofType = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);

describe('opencode translator on recorded streams', () => {
  it('reads a run with tool calls: messages, tools, one result with its tokens and cost, the answer', () => {
    const t = createOpenCodeTranslator({ cwd: RECORDED_CWD, elapsedMs: () => 4200 });
    const events = feed(t, recorded('success-tools.jsonl'));

    expect(ofType(events, 'message').map((e) => e.text)).toEqual([
      'Writing the notes.',
      'The notes are written.\n\n<promise>COMPLETE</promise>',
    ]);
    expect(ofType(events, 'tool')).toEqual([
      { type: 'tool', name: 'write', summary: 'notes.md' },
      { type: 'tool', name: 'edit', summary: 'notes.md' },
      { type: 'tool', name: 'bash', summary: 'cat notes.md' },
    ]);
    // Four model round trips, reported once, when the last step ends the work.
    const results = ofType(events, 'result');
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({
      turns: 4,
      tokens: { input: 400, output: 80, cacheRead: 120, cacheWrite: 20 },
      durationMs: 4200,
      isError: false,
    });
    // 4 × (100×3 + 20×15 + 30×0.3 + 5×3.75) / 1e6, as OpenCode priced each step.
    expect(results[0]?.costUsd).toBeCloseTo(4 * 0.00062775, 10);
    expect(ofType(events, 'unknown')).toEqual([]);

    const outcome = t.finish('', 0);
    expect(outcome).toMatchObject({ agentError: null, fatal: null, limit: null });
    expect(outcome.finalAnswer).toBe('The notes are written.\n\n<promise>COMPLETE</promise>');
    expect(parseSignal(outcome.finalAnswer)).toMatchObject({ kind: 'complete' });
  });

  it('fails the attempt on an API error, with OpenCode words and a result marked as an error', () => {
    const t = createOpenCodeTranslator();
    const events = feed(t, recorded('400-invalid-request.jsonl'));
    const agentError =
      'OpenCode reported an error (API 400): messages.0.content.0.text: text content blocks must be non-empty';
    expect(events).toEqual([
      expect.objectContaining({ type: 'result', turns: 0, costUsd: 0, isError: true }),
      { type: 'error', message: agentError, fatal: false },
    ]);
    expect(t.finish('', 1)).toEqual({ finalAnswer: '', agentError, fatal: null, limit: null });
  });

  it('stops the run when the provider refuses the key (401), with how to log in', () => {
    const t = createOpenCodeTranslator();
    const events = feed(t, recorded('401-invalid-key.jsonl'));
    const fatal = `${OPENCODE_AUTH_MESSAGE} (invalid x-api-key)`;
    expect(ofType(events, 'error')).toEqual([{ type: 'error', message: fatal, fatal: true }]);
    expect(fatal).toContain('opencode auth login');
    expect(t.finish('', 1)).toMatchObject({ fatal, limit: null });
  });

  it('reports a 429 after its retries as a rate limit that resets after retry-after', () => {
    const t = createOpenCodeTranslator();
    const events = feed(t, recorded('429-after-retries.jsonl'));
    expect(ofType(events, 'notice')).toEqual([
      {
        type: 'notice',
        text: 'OpenCode stopped: Number of request tokens has exceeded your per-minute rate limit',
      },
    ]);
    expect(ofType(events, 'error')).toEqual([]);
    const outcome = t.finish('', 1);
    expect(outcome.limit).toEqual({
      kind: 'rate',
      // The line's timestamp (1795824062918) plus `retry-after: 1`.
      resetsAt: new Date(1795824062918 + 1000).toISOString(),
      source: 'opencode error (API 429)',
      message:
        "the API refused OpenCode's requests with 429 (rate limit) after its retries (Number of request tokens has exceeded your per-minute rate limit)",
    });
    expect(outcome.agentError).toContain('(API 429)');
  });

  it('reports an API it cannot reach as a connection limit', () => {
    const t = createOpenCodeTranslator();
    feed(t, recorded('connection-refused-killed.jsonl'));
    expect(t.finish('', null).limit).toMatchObject({
      kind: 'connection',
      resetsAt: null,
      source: 'opencode error (no connection)',
    });
  });

  it('takes a context overflow as the compaction OpenCode does, and never its own notes as the answer', () => {
    const t = createOpenCodeTranslator();
    const events = feed(t, recorded('400-too-long-compaction-killed.jsonl'));
    expect(ofType(events, 'error')).toEqual([]);
    expect(ofType(events, 'notice')[0]?.text).toBe(
      'OpenCode compacts its conversation: prompt is too long: 250000 tokens > 200000 maximum',
    );
    // OpenCode's synthetic "The previous request exceeded …" text is not the agent's.
    expect(ofType(events, 'message').map((e) => e.text)).not.toContainEqual(
      expect.stringContaining('The previous request exceeded'),
    );
    expect(t.finish('', null)).toMatchObject({ agentError: null, fatal: null, limit: null });
  });
});

describe('opencode translator on single lines', () => {
  const session = 'ses_main';
  const text = (textValue: string, extra: object = {}): object => ({
    type: 'text',
    timestamp: 1,
    sessionID: session,
    part: { type: 'text', sessionID: session, messageID: 'msg_1', text: textValue, ...extra },
  });

  it('names a line of a type it does not know, and a known one whose shape changed', () => {
    const t = createOpenCodeTranslator();
    const events = feed(t, [
      { type: 'step_start', sessionID: session, part: { type: 'step-start' } },
      { type: 'session_summary', sessionID: session, summary: {} },
      { type: 'text', sessionID: session, part: { text: 42 } },
      { type: 'reasoning', sessionID: session, part: { text: 'hmm' } },
      'not json at all',
    ]);
    expect(events).toEqual([
      { type: 'unknown', what: 'session_summary' },
      { type: 'unknown', what: 'text' },
    ]);
  });

  it('joins the text parts of one message, and keeps only the last message as the answer', () => {
    const t = createOpenCodeTranslator();
    feed(t, [
      text('<promise>FAILED: not yet</promise>', { messageID: 'msg_0' }),
      text('All done.'),
      text('<promise>COMPLETE</promise>'),
    ]);
    expect(t.finish('', 0).finalAnswer).toBe('All done.\n<promise>COMPLETE</promise>');
  });

  it("never takes a sub-agent's text or a synthetic part as the answer", () => {
    const t = createOpenCodeTranslator();
    const events = feed(t, [
      text('Working on it.'),
      {
        type: 'text',
        sessionID: 'ses_child',
        part: { sessionID: 'ses_child', messageID: 'msg_9', text: '<promise>COMPLETE</promise>' },
      },
      text('<promise>COMPLETE</promise>', { messageID: 'msg_2', synthetic: true }),
    ]);
    expect(ofType(events, 'message').map((e) => e.text)).toEqual(['Working on it.']);
    expect(t.finish('', 0).finalAnswer).toBe('Working on it.');
  });

  it('reports the steps before an error once, in a result marked as an error', () => {
    const t = createOpenCodeTranslator();
    const step = (reason: string): object => ({
      type: 'step_finish',
      sessionID: session,
      part: {
        reason,
        cost: 0.5,
        tokens: { input: 10, output: 2, reasoning: 1, cache: { read: 3, write: 4 } },
      },
    });
    const events = feed(t, [
      step('tool-calls'),
      step('tool-calls'),
      {
        type: 'error',
        sessionID: session,
        error: { name: 'UnknownError', data: { message: 'boom' } },
      },
    ]);
    expect(ofType(events, 'result')).toEqual([
      expect.objectContaining({
        turns: 2,
        tokens: { input: 20, output: 6, cacheRead: 6, cacheWrite: 8 },
        costUsd: 1,
        isError: true,
      }),
    ]);
    expect(t.finish('', 1).agentError).toBe('OpenCode reported an error (UnknownError): boom');
  });

  it('reads an overloaded or failing server as a limit, and a 403 as neither a limit nor a login', () => {
    const failure = (statusCode: number): object => ({
      type: 'error',
      sessionID: session,
      error: { name: 'APIError', data: { message: `status ${statusCode}`, statusCode } },
    });
    const limitOf = (statusCode: number) => {
      const t = createOpenCodeTranslator();
      feed(t, [failure(statusCode)]);
      return t.finish('', 1);
    };
    expect(limitOf(529).limit?.kind).toBe('overloaded');
    expect(limitOf(503).limit?.kind).toBe('overloaded');
    expect(limitOf(500).limit?.kind).toBe('server');
    expect(limitOf(403)).toMatchObject({ limit: null, fatal: null });
  });
});
