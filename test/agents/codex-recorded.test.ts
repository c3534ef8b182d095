// The codex translator on what the real Codex 0.171.0 printed (test/fixtures/codex-stream/,
// recorded against a scripted Responses API; see its README).
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CODEX_AUTH_MESSAGE, createCodexTranslator } from '../../src/agents/codex-translator.js';
import type { AgentEvent, StreamTranslator, TranslatedOutcome } from '../../src/agents/types.js';

const NOW = Date.parse('2026-11-27T23:35:00Z');

function lines(name: string): string[] {
  const text = readFileSync(
    new URL(`../fixtures/codex-stream/${name}.jsonl`, import.meta.url),
    'utf8',
  );
  return text.split('\n').filter((line) => line !== '');
}

function replay(name: string): {
  translator: StreamTranslator;
  events: AgentEvent[];
  outcome: TranslatedOutcome;
} {
  const translator = createCodexTranslator({ elapsedMs: () => 4200, now: () => NOW });
  const events = lines(name).flatMap((line) => translator.push(line, false));
  return { translator, events, outcome: translator.finish('', 1) };
}

const METADATA_WARNING = {
  type: 'error',
  fatal: false,
  message: expect.stringMatching(/^Model metadata for `gpt-5` not found/) as unknown,
};

describe('the codex translator on recorded Codex 0.171.0 output', () => {
  it('knows every line type Codex printed', () => {
    const all = [
      'complete',
      'exec-command-complete',
      '400-bad-request',
      '401-invalid-api-key',
      '429-usage-limit',
      '429-rate-no-retry',
      '500-no-retry',
      '500-request-retries-2',
      'stream-dropped-retries-2',
      'response-failed-rate-limit',
      'response-failed-server-error',
      'response-failed-insufficient-quota',
      'connection-refused-reconnecting',
    ];
    const types = new Set(
      all.flatMap(lines).map((line) => (JSON.parse(line) as { type: string }).type),
    );
    expect([...types].sort()).toEqual([
      'error',
      'item.completed',
      'item.started',
      'thread.started',
      'turn.completed',
      'turn.failed',
      'turn.started',
    ]);
    for (const name of all) {
      expect(
        replay(name).events.filter((e) => e.type === 'unknown'),
        name,
      ).toEqual([]);
    }
  });

  it('a completed exec_command turn: the command, the answer, the turn’s summed tokens, no cost', () => {
    const { events, outcome } = replay('exec-command-complete');
    expect(events).toEqual([
      METADATA_WARNING,
      {
        type: 'tool',
        name: 'shell',
        summary: "/bin/bash -lc 'printf done > done.txt && cat done.txt'",
      },
      { type: 'message', text: 'Wrote done.txt.\n<promise>COMPLETE</promise>' },
      {
        type: 'result',
        turns: 1,
        // 400 + 600 input of which 100 + 150 cached; 20 + 30 output (reasoning included).
        tokens: { input: 750, output: 50, cacheRead: 250, cacheWrite: 0 },
        costUsd: null,
        durationMs: 4200,
        isError: false,
        text: 'Wrote done.txt.\n<promise>COMPLETE</promise>',
      },
    ]);
    expect(outcome).toEqual({
      finalAnswer: 'Wrote done.txt.\n<promise>COMPLETE</promise>',
      agentError: null,
      fatal: null,
      limit: null,
    });
  });

  it('a 401: fatal, with the login hint and Codex’s own words', () => {
    const { events, outcome } = replay('401-invalid-api-key');
    const fatal = events.filter((e) => e.type === 'error' && e.fatal);
    expect(fatal).toHaveLength(1);
    expect(outcome.fatal).toContain(CODEX_AUTH_MESSAGE);
    expect(outcome.fatal).toContain('unexpected status 401 Unauthorized: Incorrect API key');
    expect(outcome.limit).toBeNull();
  });

  it('a 400: an ordinary failure with Codex’s message, no limit', () => {
    const { outcome } = replay('400-bad-request');
    expect(outcome).toMatchObject({ fatal: null, limit: null });
    expect(outcome.agentError).toMatch(
      /^Codex reported an error: \{"error":\{"message":"Invalid value/,
    );
  });

  it('a usage limit (written with ’): usage, reset from its words', () => {
    const { outcome } = replay('429-usage-limit');
    expect(outcome.limit).toMatchObject({ kind: 'usage', source: 'codex turn.failed' });
    expect(outcome.limit?.message).toMatch(/^Codex: You’ve hit your usage limit/);
    // "try again at Nov 28th, 2026 12:35 AM", in the machine's local time.
    expect(outcome.limit?.resetsAt).toBe(new Date(2026, 10, 28, 0, 35).toISOString());
  });

  it('a plain 429, a response.failed rate limit (reset in 1.5 s), a 500 (high demand)', () => {
    expect(replay('429-rate-no-retry').outcome.limit).toMatchObject({
      kind: 'rate',
      resetsAt: null,
    });
    expect(replay('response-failed-rate-limit').outcome.limit).toMatchObject({
      kind: 'rate',
      resetsAt: new Date(NOW + 1500).toISOString(),
    });
    for (const name of ['500-no-retry', '500-request-retries-2']) {
      expect(replay(name).outcome.limit, name).toMatchObject({
        kind: 'overloaded',
        message:
          'Codex: We’re currently experiencing high demand, which may cause temporary errors.',
      });
    }
    expect(replay('response-failed-server-error').outcome.limit).toMatchObject({
      kind: 'connection',
    });
  });

  it('insufficient quota is no limit: waiting refills no credit', () => {
    const { outcome } = replay('response-failed-insufficient-quota');
    expect(outcome).toMatchObject({ limit: null, fatal: null });
    expect(outcome.agentError).toBe(
      'Codex reported an error: Quota exceeded. Check your plan and billing details.',
    );
  });

  it('reconnects are notices and no progress; the lost stream after them is a connection limit', () => {
    const { translator, events, outcome } = replay('stream-dropped-retries-2');
    expect(events.filter((e) => e.type === 'notice')).toEqual([
      {
        type: 'notice',
        text: 'Codex reconnecting 1/2: stream disconnected before completion: error sending request',
      },
      {
        type: 'notice',
        text: 'Codex reconnecting 2/2: stream disconnected before completion: error sending request',
      },
    ]);
    const progress = lines('stream-dropped-retries-2').map((l) => translator.isProgress?.(l));
    expect(progress).toEqual([true, true, true, false, false, true, true]);
    expect(outcome.limit).toMatchObject({ kind: 'connection', source: 'codex turn.failed' });
  });

  it('waiting for the network, again and again: notices, none of them progress', () => {
    const { translator, events, outcome } = replay('connection-refused-reconnecting');
    const waiting = lines('connection-refused-reconnecting').slice(3);
    expect(waiting.length).toBeGreaterThan(0);
    for (const line of waiting) expect(translator.isProgress?.(line), line).toBe(false);
    expect(events.slice(1)).toEqual(
      waiting.map(() => ({
        type: 'notice',
        text: 'Codex waiting for the network: Connection failed: error sending request',
      })),
    );
    expect(outcome).toMatchObject({ agentError: null, limit: null, fatal: null });
  });
});
