// A JSON-lines agent (claude, codex) whose program prints no JSON at all — the wrong program, or a
// version without the JSON flag — is stopped after its first lines with a fatal reason, not after
// the idle timeout. Real processes: the fake agent as RALPHTOOL_CLAUDE_BIN or as `codex` on PATH.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBackend } from '../../../src/agents/index.js';
import type { AgentEvent, BackendOptions } from '../../../src/agents/index.js';
import { expectGone } from '../../support/processes.js';

const FAKE_AGENT = fileURLToPath(new URL('../../fixtures/agents/fake-agent.mjs', import.meta.url));

let dir: string;
let repo: string;
let logDir: string;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ralphtool-no-json-'));
  repo = join(dir, 'repo');
  logDir = join(dir, 'log');
  mkdirSync(repo, { recursive: true });
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** One attempt with the fake agent playing `steps`; no idle or wall limit unless given. */
async function attempt(
  options: Omit<BackendOptions, 'baseDir'>,
  steps: object[],
  env: NodeJS.ProcessEnv,
  idleTimeoutMs = 0,
) {
  const scenario = join(dir, 'scenario.json');
  writeFileSync(scenario, JSON.stringify({ '1-1': steps }));
  const backend = createBackend(
    { ...options, baseDir: dir },
    { ...process.env, FAKE_AGENT_SCENARIO: scenario, FAKE_AGENT_LOG_DIR: logDir, ...env },
  );
  const events: AgentEvent[] = [];
  const started = Date.now();
  const output = await backend.runAttempt({
    prompt: 'Do story 1.',
    cwd: repo,
    signal: new AbortController().signal,
    change: 'add-auth',
    storyId: '1',
    attempt: 1,
    wallTimeoutMs: 0,
    idleTimeoutMs,
    transcriptPath: join(dir, 'state/transcripts/1-1.ndjson'),
    promptFilePath: join(dir, 'state/prompts/1-1.md'),
    onEvent: (event) => events.push(event),
  });
  return { output, events, ms: Date.now() - started };
}

/** `claude` that is not Claude Code's stream-json: the fake agent printing plain text. */
const plainClaude = { RALPHTOOL_CLAUDE_BIN: FAKE_AGENT, FAKE_AGENT_FORMAT: 'plain' };
const usage = (n: number): object[] =>
  Array.from({ length: n }, (_, i) => ({ say: i === 0 ? 'Usage: claude [options]' : `  -${i}` }));
const childPid = (): number => Number(readFileSync(join(logDir, 'child-1-1.pid'), 'utf8'));

describe('a JSON-lines agent that prints no JSON', () => {
  it('is stopped after 20 lines of text, with a fatal reason', async () => {
    // Its usage, a line every 50 ms for 10 s and more: a program that would go on for ever.
    const forever = usage(200).flatMap((step) => [step, { sleep: 50 }]);
    const { output, ms } = await attempt({ agent: 'claude' }, forever, plainClaude);
    expect(output.fatal).toBe(
      `Claude Code printed no JSON events (first line: "Usage: claude [options]"): is \`${FAKE_AGENT}\` the Claude Code CLI, and a version that supports --output-format stream-json? Check \`${FAKE_AGENT} --version\`; install Claude Code with \`npm install -g @anthropic-ai/claude-code\`, or point RALPHTOOL_CLAUDE_BIN at it.`,
    );
    // Before the 5 s that a few lines and silence are given: the line count decided.
    expect(ms).toBeLessThan(4_000);
    expect(output.timedOut).toBeNull();
    expect(output.aborted).toBe(false);
    expect(output.signal).toBe('SIGTERM');
  });

  it('is stopped 5 s after a few lines of text and silence, not at the idle timeout', async () => {
    const { output, ms } = await attempt(
      { agent: 'claude' },
      [...usage(3), { hang: true, withChild: true }],
      plainClaude,
      60_000,
    );
    expect(output.fatal).toMatch(
      /^Claude Code printed no JSON events \(first line: "Usage: claude/,
    );
    expect(output.timedOut).toBeNull();
    expect(ms).toBeGreaterThanOrEqual(4_900);
    expect(ms).toBeLessThan(15_000);
    await expectGone(childPid());
  });

  it('fails with the same reason when the program printed text and exited', async () => {
    const { output } = await attempt(
      { agent: 'claude' },
      [{ say: "error: unknown option '--output-format'" }, { exit: 1 }],
      plainClaude,
    );
    expect(output.exitCode).toBe(1);
    expect(output.fatal).toMatch(
      /^Claude Code printed no JSON events \(first line: "error: unknown option '--output-format'"\)/,
    );
  });

  it('fails a real program that is not Claude Code at all (echo prints its arguments)', async () => {
    const { output } = await attempt({ agent: 'claude' }, [], {
      RALPHTOOL_CLAUDE_BIN: '/bin/echo',
    });
    expect(output.exitCode).toBe(0);
    expect(output.fatal).toMatch(
      /^Claude Code printed no JSON events \(first line: "-p --output-format stream-json --verbose --dangerously-skip-permissions"\): is `\/bin\/echo` the Claude Code CLI/,
    );
  });

  it('names codex and its flag when `codex` on PATH prints text', async () => {
    const bin = join(dir, 'bin');
    mkdirSync(bin);
    symlinkSync(FAKE_AGENT, join(bin, 'codex'));
    const { output } = await attempt({ agent: 'codex' }, [...usage(25), { exit: 0 }], {
      PATH: `${bin}:${process.env.PATH ?? ''}`,
      FAKE_AGENT_FORMAT: 'plain',
    });
    expect(output.fatal).toBe(
      'Codex printed no JSON events (first line: "Usage: claude [options]"): is `codex` the Codex CLI, and a version that supports exec --json? Check `codex --version`; install Codex with `npm install -g @openai/codex`, or set RALPHTOOL_CODEX_BIN to its path.',
    );
  });

  it('is left alone once it printed one JSON object, whatever text follows', async () => {
    const { output, events } = await attempt(
      { agent: 'claude' },
      [{ raw: '{"type":"system","subtype":"init"}' }, ...usage(40), { exit: 0 }],
      plainClaude,
    );
    expect(output.fatal).toBeNull();
    expect(output.exitCode).toBe(0);
    expect(events).toEqual([]);
  });

  it('leaves a command agent printing only text alone (its stdout is text)', async () => {
    const { output, events } = await attempt(
      { agent: 'command', agentCommand: FAKE_AGENT },
      [...usage(30), { sleep: 5_500 }, { say: '<promise>COMPLETE</promise>' }],
      {},
    );
    expect(output.fatal).toBeNull();
    expect(output.finalAnswer).toContain('<promise>COMPLETE</promise>');
    expect(events).toHaveLength(31);
  });
});

describe('a JSON-lines agent printing lines of unknown kinds', () => {
  it('reports them as unknown events and goes on to its result', async () => {
    const { output, events } = await attempt(
      { agent: 'claude' },
      [
        { raw: JSON.stringify({ type: 'thought_summary', text: 'x' }) },
        { say: 'Working.' },
        { raw: JSON.stringify({ type: 'system', subtype: 'budget_warning' }) },
        { raw: JSON.stringify({ type: 'thought_summary', text: 'y' }) },
        { say: '<promise>COMPLETE</promise>' },
      ],
      { RALPHTOOL_CLAUDE_BIN: FAKE_AGENT, FAKE_AGENT_FORMAT: 'claude' },
    );
    expect(events.filter((e) => e.type === 'unknown')).toEqual([
      { type: 'unknown', what: 'thought_summary' },
      { type: 'unknown', what: 'system/budget_warning' },
      { type: 'unknown', what: 'thought_summary' },
    ]);
    expect(output.fatal).toBeNull();
    expect(output.finalAnswer).toBe('<promise>COMPLETE</promise>');
  });
});
