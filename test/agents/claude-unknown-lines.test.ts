// Lines of a Claude Code stream whose shape ralphtool does not know (a newer Claude Code): each is
// an `unknown` event naming its kind, never an error, and what ralphtool reads still works.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { createClaudeTranslator } from '../../src/agents/claude-translator.js';
import type { AgentEvent, StreamTranslator } from '../../src/agents/types.js';

function feed(translator: StreamTranslator, lines: readonly (string | object)[]): AgentEvent[] {
  return lines.flatMap((line) =>
    translator.push(typeof line === 'string' ? line : JSON.stringify(line), false),
  );
}

const init = {
  type: 'system',
  subtype: 'init',
  cwd: '/repo',
  model: 'claude-sonnet-4-5',
  claude_code_version: '2.3.0',
  session_id: 's',
};
const text = (words: string): object => ({
  type: 'assistant',
  message: { id: 'msg_1', content: [{ type: 'text', text: words }] },
  parent_tool_use_id: null,
});
const result = (subtype: string, extra: object = {}): object => ({
  type: 'result',
  subtype,
  is_error: subtype !== 'success',
  num_turns: 2,
  total_cost_usd: 0.01,
  duration_ms: 900,
  result: '<promise>COMPLETE</promise>',
  ...extra,
});

/** Every line Claude Code printed in the recordings of the real binary kept in this repository. */
function recordedLines(): { file: string; line: string }[] {
  const dirs = ['../fixtures/claude-stream/', '../fixtures/agents/'];
  return dirs.flatMap((dir) => {
    const url = new URL(dir, import.meta.url);
    return readdirSync(url)
      .filter((f) => /^(?!.*record-server).*\.(jsonl|ndjson)$/.test(f) && !f.startsWith('codex'))
      .flatMap((file) =>
        readFileSync(new URL(file, url), 'utf8')
          .split('\n')
          .filter((line) => line.trim() !== '')
          .map((line) => ({ file, line })),
      );
  });
}

describe('claude translator: lines of unknown shape', () => {
  it('knows every line kind of the recordings of the real Claude Code 2.1.197', () => {
    const lines = recordedLines();
    // The recordings hold init, api_retry, assistant, rate_limit_event and result lines at least.
    expect(lines.length).toBeGreaterThan(50);
    const unknown = lines.flatMap(({ file, line }) =>
      createClaudeTranslator()
        .push(line, false)
        .filter((e) => e.type === 'unknown')
        .map((e) => `${file}: ${JSON.stringify(e)}`),
    );
    expect(unknown).toEqual([]);
  });

  it('knows the kinds 2.1.197 prints that ralphtool does not read, and says nothing of them', () => {
    const t = createClaudeTranslator();
    const known = [
      { type: 'user', message: { role: 'user', content: [] } },
      { type: 'stream_event', event: { type: 'message_start' } },
      { type: 'tool_progress', tool_use_id: 't', tool_name: 'Bash', elapsed_time_seconds: 3 },
      { type: 'tool_use_summary', summary: 'ran tests' },
      { type: 'auth_status', isAuthenticating: false, output: [] },
      { type: 'prompt_suggestion', suggestion: 'next' },
      { type: 'keep_alive' },
      ...['compact_boundary', 'status', 'hook_started', 'hook_response', 'task_started'].map(
        (subtype) => ({ type: 'system', subtype }),
      ),
      ...['task_notification', 'files_persisted', 'informational'].map((subtype) => ({
        type: 'system',
        subtype,
      })),
    ];
    expect(feed(t, known)).toEqual([]);
  });

  it('names a new type, with the version its init line said', () => {
    const t = createClaudeTranslator();
    const events = feed(t, [
      { type: 'thought_summary', text: 'x' },
      init,
      { type: 'thought_summary', text: 'y' },
      text('working'),
    ]);
    expect(events).toEqual([
      { type: 'unknown', what: 'thought_summary' },
      { type: 'unknown', what: 'thought_summary', version: '2.3.0' },
      { type: 'message', text: 'working' },
    ]);
  });

  it('names a new system subtype and still reads the system lines it knows', () => {
    const t = createClaudeTranslator();
    const retry = {
      type: 'system',
      subtype: 'api_retry',
      attempt: 1,
      max_retries: 10,
      retry_delay_ms: 500,
      error_status: 529,
      error: 'overloaded',
    };
    expect(feed(t, [init, { type: 'system', subtype: 'budget_warning' }, retry])).toEqual([
      { type: 'unknown', what: 'system/budget_warning', version: '2.3.0' },
      { type: 'notice', text: 'API 529 (overloaded) — Claude Code retrying 1/10 in 0.5s' },
    ]);
  });

  it('reads a result of a new subtype as the end all the same, and names the subtype', () => {
    const t = createClaudeTranslator();
    const events = feed(t, [init, result('error_max_tokens', { result: 'too long' })]);
    expect(events.map((e) => e.type)).toEqual(['result', 'error', 'unknown']);
    expect(events[2]).toEqual({
      type: 'unknown',
      what: 'result/error_max_tokens',
      version: '2.3.0',
    });
    expect(t.finish('').agentError).toMatch(/error_max_tokens/);
    // Read to its end: nothing after the result counts.
    expect(feed(t, [{ type: 'thought_summary' }])).toEqual([]);
  });

  it('names a known kind whose fields changed once, not twice', () => {
    const t = createClaudeTranslator();
    const events = feed(t, [
      { type: 'assistant', message: { content: { text: 'an object now' } } },
      { type: 'rate_limit_event', info: { status: 'rejected' } },
      { type: 'system', subtype: 'new_kind', attempt: 'first' },
    ]);
    expect(events).toEqual([
      { type: 'unknown', what: 'assistant (unexpected fields)' },
      { type: 'unknown', what: 'rate_limit_event (unexpected fields)' },
      { type: 'unknown', what: 'system/new_kind (unexpected fields)' },
    ]);
  });

  it('names a JSON object without a type, and skips text and JSON that is no object', () => {
    const t = createClaudeTranslator();
    expect(feed(t, [{ kind: 'assistant' }, 'Warning: something', '[1]', '42', '"s"'])).toEqual([
      { type: 'unknown', what: '(no type)' },
    ]);
  });

  it('says it reads JSON lines (a stream without any is stopped early)', () => {
    expect(createClaudeTranslator().format).toBe('json-lines');
  });
});
