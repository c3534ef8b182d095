// The opencode backend starts its program with the right arguments, gives it the prompt on
// stdin, and reads its stream through the translator. The program here is a real executable
// that records how it was started and prints a stream the real OpenCode printed
// (test/fixtures/opencode-stream/); the real binary is driven in test/e2e/opencode-loop.test.ts.
import { chmodSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBackend, type AgentEvent } from '../../src/agents/index.js';
import { OPENCODE_ARGS } from '../../src/agents/opencode.js';
import { assertAgentAvailable } from '../../src/agents/preflight.js';
import { toRunOptions } from '../../src/cli/run-flags.js';
import { RuntimeError, UsageError } from '../../src/core/errors.js';

const FIXTURES = path.resolve('test/fixtures/opencode-stream');
let dir = '';
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ralphtool-opencode-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** An executable that records argv and stdin, then prints `fixture` and exits with `code`. */
function fakeOpenCode(fixture: string, code: number): string {
  const program = path.join(dir, 'opencode');
  writeFileSync(
    program,
    `#!${process.execPath}
const fs = require('node:fs');
const stdin = fs.readFileSync(0, 'utf8');
fs.writeFileSync(${JSON.stringify(path.join(dir, 'invocation.json'))}, JSON.stringify({ argv: process.argv.slice(2), stdin, cwd: process.cwd(), pwd: process.env.PWD }));
process.stdout.write(fs.readFileSync(${JSON.stringify(path.join(FIXTURES, fixture))}));
process.exit(${code});
`,
  );
  chmodSync(program, 0o755);
  return program;
}

async function attempt(fixture: string, code: number, model?: string) {
  const program = fakeOpenCode(fixture, code);
  const backend = createBackend(
    { agent: 'opencode', model, baseDir: dir },
    // PWD as a shell leaves it where ralphtool was started, not where the agent runs.
    { ...process.env, PWD: '/', RALPHTOOL_OPENCODE_BIN: program },
  );
  const events: AgentEvent[] = [];
  const output = await backend.runAttempt({
    prompt: '# Working on Story 1: Notes\n',
    cwd: dir,
    signal: new AbortController().signal,
    change: 'add-notes',
    storyId: '1',
    attempt: 1,
    wallTimeoutMs: 0,
    idleTimeoutMs: 0,
    transcriptPath: path.join(dir, 'state/transcripts/1-1.ndjson'),
    promptFilePath: path.join(dir, 'state/prompts/1-1.md'),
    onEvent: (event) => events.push(event),
  });
  const invocation = JSON.parse(readFileSync(path.join(dir, 'invocation.json'), 'utf8')) as {
    argv: string[];
    stdin: string;
    cwd: string;
    pwd: string;
  };
  return { output, events, invocation };
}

describe('opencode backend', () => {
  it('runs `opencode run --format json --auto -m <model>` with the prompt on stdin', async () => {
    const { output, events, invocation } = await attempt(
      'success-tools.jsonl',
      0,
      'anthropic/claude-x',
    );
    expect(OPENCODE_ARGS).toEqual(['run', '--format', 'json', '--auto']);
    expect(invocation.argv).toEqual([...OPENCODE_ARGS, '-m', 'anthropic/claude-x']);
    expect(invocation.stdin).toBe('# Working on Story 1: Notes\n');
    // OpenCode's tools work in $PWD: it must be the repository, where the agent runs.
    expect(invocation).toMatchObject({ cwd: realpathSync(dir), pwd: dir });
    expect(events.filter((e) => e.type === 'tool').map((e) => e.name)).toEqual([
      'write',
      'edit',
      'bash',
    ]);
    expect(output).toMatchObject({ exitCode: 0, agentError: null, fatal: null, limit: null });
    expect(output.finalAnswer).toContain('<promise>COMPLETE</promise>');
  });

  it('passes no -m without a model, and makes a refused key fatal', async () => {
    const { output, invocation } = await attempt('401-invalid-key.jsonl', 1);
    expect(invocation.argv).toEqual([...OPENCODE_ARGS]);
    // (Its exit code is a race: a fatal error stops the agent at once.)
    expect(output.fatal).toMatch(/opencode auth login/);
  });

  it('says how to install OpenCode when it is missing', () => {
    const env = { PATH: path.join(dir, 'empty') };
    expect(() => assertAgentAvailable({ agent: 'opencode' }, env, dir)).toThrow(RuntimeError);
    expect(() => assertAgentAvailable({ agent: 'opencode' }, env, dir)).toThrow(
      'OpenCode (`opencode`) was not found on PATH: install OpenCode with `npm install -g opencode-ai`, or set RALPHTOOL_OPENCODE_BIN to its path',
    );
  });

  it('takes --agent opencode, and a --model only as provider/model (exit 2)', () => {
    expect(toRunOptions({ agent: 'opencode', model: 'anthropic/claude-x' }, false)).toMatchObject({
      agent: 'opencode',
      model: 'anthropic/claude-x',
    });
    for (const model of ['claude-x', '/claude-x', 'anthropic/']) {
      expect(() => toRunOptions({ agent: 'opencode', model }, false)).toThrow(UsageError);
    }
    expect(() => toRunOptions({ agent: 'opencode', model: 'gpt' }, false)).toThrow(
      '--model for --agent opencode is provider/model (e.g. anthropic/claude-sonnet-4-5), got "gpt"',
    );
    // Other agents keep their own model names.
    expect(toRunOptions({ agent: 'claude', model: 'opus' }, false)).toMatchObject({
      model: 'opus',
    });
  });
});
