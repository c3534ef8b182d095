// The Gemini CLI translator on streams recorded from the real binary (0.61.0), see
// test/fixtures/gemini-stream/README.md.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { geminiLimit } from '../../src/agents/gemini-limits.js';
import { createGeminiTranslator, GEMINI_AUTH_MESSAGE } from '../../src/agents/gemini-translator.js';
import type { AgentEvent, TranslatedOutcome } from '../../src/agents/types.js';

const FIXTURES = path.resolve('test/fixtures/gemini-stream');
const NOW = Date.parse('2026-11-27T23:40:19.000Z');

function recorded(name: string): string[] {
  return readFileSync(path.join(FIXTURES, name), 'utf8').split('\n').filter(Boolean);
}

function translate(
  lines: string[],
  end: { stderr?: string; exitCode?: number | null } = {},
): { events: AgentEvent[]; outcome: TranslatedOutcome } {
  const translator = createGeminiTranslator({ cwd: '/tmp/gemprobe/repo', now: () => NOW });
  const events = lines.flatMap((line) => translator.push(line, false));
  return { events, outcome: translator.finish(end.stderr ?? '', end.exitCode ?? 0) };
}

const ofType = <T extends AgentEvent['type']>(events: AgentEvent[], type: T) =>
  events.filter((e): e is Extract<AgentEvent, { type: T }> => e.type === type);

describe('createGeminiTranslator on recorded streams', () => {
  it('reads a run with tool calls: tools, text per turn, the last turn as the answer, tokens', () => {
    const { events, outcome } = translate(recorded('success-tools.jsonl'));

    expect(ofType(events, 'tool')).toEqual([
      { type: 'tool', name: 'write_file', summary: 'hello.txt' },
      { type: 'tool', name: 'read_file', summary: 'tasks.md' },
      { type: 'tool', name: 'replace', summary: 'tasks.md' },
      { type: 'tool', name: 'replace', summary: 'tasks.md' },
      {
        type: 'tool',
        name: 'run_shell_command',
        summary: 'echo shell-ran > shell.txt && echo done',
      },
    ]);
    // Deltas are joined into one message per turn; the echoed prompt ("Do the task") is no message.
    expect(ofType(events, 'message')).toEqual([
      { type: 'message', text: 'I will write a file.' },
      { type: 'message', text: 'All done. <promise>COMPLETE</promise>' },
    ]);
    expect(ofType(events, 'result')).toEqual([
      {
        type: 'result',
        // Five model turns: write; read + replace; replace; shell; the answer.
        turns: 5,
        tokens: { input: 505, output: 51, cacheRead: 0, cacheWrite: 0 },
        costUsd: null,
        durationMs: 2805,
        isError: false,
        text: 'All done. <promise>COMPLETE</promise>',
      },
    ]);
    // A tool's failure (replace found no match) is the model's business, not an error of the run.
    expect(ofType(events, 'error')).toEqual([]);
    expect(outcome).toEqual({
      finalAnswer: 'All done. <promise>COMPLETE</promise>',
      agentError: null,
      fatal: null,
      limit: null,
    });
  });

  it('never takes the echoed prompt for the answer, even when it holds a signal', () => {
    const prompt = JSON.stringify({
      type: 'message',
      role: 'user',
      content: 'End with <promise>COMPLETE</promise> when done.',
    });
    const { events, outcome } = translate([prompt]);
    expect(events).toEqual([]);
    expect(outcome.finalAnswer).toBe('');
  });

  it('does not count text written before a tool call as the final answer', () => {
    const lines = [
      { type: 'message', role: 'assistant', content: '<promise>COMPLETE</promise>', delta: true },
      { type: 'tool_use', tool_name: 'write_file', tool_id: 't1', parameters: { file_path: 'a' } },
      { type: 'tool_result', tool_id: 't1', status: 'success' },
      { type: 'result', status: 'success', stats: { input_tokens: 1, output_tokens: 1 } },
    ].map((l) => JSON.stringify(l));
    const { outcome, events } = translate(lines);
    expect(outcome.finalAnswer).toBe('');
    expect(ofType(events, 'result')[0]).toMatchObject({ turns: 1, text: '' });
  });

  it('reads the text-only answer of a run whose model was routed (two models in the stats)', () => {
    const { events, outcome } = translate(recorded('success-text.jsonl'));
    expect(outcome.finalAnswer).toBe('Hello from probe. <promise>COMPLETE</promise>');
    expect(ofType(events, 'result')[0]).toMatchObject({
      turns: 1,
      tokens: { input: 105, output: 11, cacheRead: 0, cacheWrite: 0 },
      isError: false,
    });
  });

  it('takes cached tokens apart from the input, as Claude counts them', () => {
    const line = JSON.stringify({
      type: 'result',
      status: 'success',
      stats: { input_tokens: 1000, output_tokens: 20, cached: 600, input: 400, duration_ms: 5 },
    });
    expect(ofType(translate([line]).events, 'result')[0]?.tokens).toEqual({
      input: 400,
      output: 20,
      cacheRead: 600,
      cacheWrite: 0,
    });
  });

  it.each([
    ['401.jsonl', 145, /401.*UNAUTHENTICATED/],
    ['400-api-key-invalid.jsonl', 144, /API key not valid/],
  ])('stops at once when the API refuses the key (%s, exit %i)', (file, exitCode, detail) => {
    const { events, outcome } = translate(recorded(file), { exitCode });
    const fatal = ofType(events, 'error').filter((e) => e.fatal);
    expect(fatal).toHaveLength(1);
    expect(fatal[0]?.message).toContain(GEMINI_AUTH_MESSAGE);
    expect(fatal[0]?.message).toMatch(detail);
    expect(outcome.fatal).toBe(fatal[0]?.message);
    expect(outcome.limit).toBeNull();
    expect(outcome.agentError).toMatch(/^Gemini CLI reported an error: \[API Error/);
  });

  it('stops at once when Gemini CLI has no credentials (exit 41, stderr only)', () => {
    const stderr = readFileSync(path.join(FIXTURES, 'no-auth.stderr.txt'), 'utf8');
    const { events, outcome } = translate([], { stderr, exitCode: 41 });
    expect(events).toEqual([]);
    expect(outcome.fatal).toContain(GEMINI_AUTH_MESSAGE);
    expect(outcome.fatal).toContain('Please set an Auth method');

    const noKey = readFileSync(path.join(FIXTURES, 'no-key.stderr.txt'), 'utf8');
    expect(translate([], { stderr: noKey, exitCode: 41 }).outcome.fatal).toMatch(
      /must specify the GEMINI_API_KEY environment variable/,
    );
  });

  it('does not read an exit 41 after a result as an authentication failure', () => {
    const { outcome } = translate(recorded('success-text.jsonl'), { exitCode: 41 });
    expect(outcome.fatal).toBeNull();
  });

  it('reads a per-minute 429 as a rate limit that resets when the API said, shown as a notice', () => {
    const { events, outcome } = translate(recorded('429-per-minute.jsonl'), { exitCode: 173 });
    expect(outcome.limit).toEqual({
      kind: 'rate',
      // "Please retry in 43.5s." from NOW
      resetsAt: '2026-11-27T23:41:02.500Z',
      source: 'gemini result',
      message: expect.stringMatching(
        /^Gemini CLI: \[API Error: You exceeded your current quota/,
      ) as unknown,
    });
    expect(ofType(events, 'notice')).toEqual([
      {
        type: 'notice',
        text: expect.stringMatching(/^Gemini CLI stopped: \[API Error/) as unknown,
      },
    ]);
    expect(ofType(events, 'error')).toEqual([]);
    expect(outcome.fatal).toBeNull();
    expect(ofType(events, 'result')[0]).toMatchObject({ isError: true, turns: 0 });
  });

  it('reads an exhausted daily quota as a usage limit with no known reset', () => {
    const { outcome } = translate(recorded('429-daily.jsonl'), { exitCode: 173 });
    expect(outcome.limit).toMatchObject({ kind: 'usage', resetsAt: null });
    expect(outcome.limit?.message).toContain('exhausted your daily quota');
  });

  it.each([
    ['500-max-attempts-1.jsonl', 244, 'server'],
    ['500-retries.jsonl', 244, 'server'],
    ['connection-refused.jsonl', 1, 'connection'],
  ])('reads %s (exit %i) as a transient %s failure Gemini CLI gave up on', (file, code, kind) => {
    const { outcome } = translate(recorded(file), { exitCode: code });
    expect(outcome.limit).toMatchObject({ kind, resetsAt: null, source: 'gemini result' });
    expect(outcome.agentError).toMatch(/^Gemini CLI reported an error/);
    expect(outcome.fatal).toBeNull();
  });

  it('reports an error result that is no limit and no auth failure as a non-fatal error', () => {
    const line = JSON.stringify({
      type: 'result',
      status: 'error',
      error: {
        type: 'FatalToolExecutionError',
        message: 'Error executing tool write_file: ENOSPC',
      },
      stats: { input_tokens: 0, output_tokens: 0 },
    });
    const { events, outcome } = translate([line]);
    expect(ofType(events, 'error')).toEqual([
      {
        type: 'error',
        message: 'Gemini CLI reported an error: Error executing tool write_file: ENOSPC',
        fatal: false,
      },
    ]);
    expect(outcome.limit).toBeNull();
  });

  it('shows its own warnings as non-fatal errors', () => {
    const line = JSON.stringify({
      type: 'error',
      severity: 'warning',
      message: 'Loop detected, stopping execution',
    });
    expect(translate([line]).events).toEqual([
      { type: 'error', message: 'Gemini CLI: Loop detected, stopping execution', fatal: false },
    ]);
  });

  it('names a line type it does not know, skips garbage, truncated lines and schema mismatches', () => {
    const translator = createGeminiTranslator();
    expect(translator.push('{"type":"thought","content":"hm"}', false)).toEqual([
      { type: 'unknown', what: 'thought' },
    ]);
    expect(translator.push('not json', false)).toEqual([]);
    expect(translator.push('{"no":"type"}', false)).toEqual([]);
    expect(translator.push('{"type":"message","role":"assistant"}', false)).toEqual([]);
    expect(translator.push('{"type":"init","session_id":"x","model":"auto"}', false)).toEqual([]);
    expect(translator.push('{"type":"message","role":"assistant","content":"x"}', true)).toEqual(
      [],
    );
    expect(translator.finish('', 0).finalAnswer).toBe('');
  });

  it('stops reading at the first result', () => {
    const lines = [
      ...recorded('success-text.jsonl'),
      JSON.stringify({ type: 'message', role: 'assistant', content: 'late' }),
    ];
    expect(translate(lines).outcome.finalAnswer).toBe(
      'Hello from probe. <promise>COMPLETE</promise>',
    );
  });
});

describe('geminiLimit', () => {
  it('reads no limit in an ordinary failure', () => {
    expect(geminiLimit('[API Error: Request contains an invalid argument.]', NOW)).toBeNull();
  });

  it('reads a 503 as the API overloaded', () => {
    const message =
      '[API Error: {"error":{"code":503,"message":"The model is overloaded. Please try again later.","status":"UNAVAILABLE"}}]';
    expect(geminiLimit(message, NOW)).toMatchObject({ kind: 'overloaded', resetsAt: null });
  });

  it('reads a retry delay in milliseconds', () => {
    const message = '[API Error: You exceeded your current quota. Please retry in 900ms.]';
    expect(geminiLimit(message, NOW)?.resetsAt).toBe('2026-11-27T23:40:19.900Z');
  });
});
