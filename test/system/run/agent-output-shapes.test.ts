// `ralphtool run` with an agent whose output is not what ralphtool expects (spawned CLI, the fake
// agent as RALPHTOOL_CLAUDE_BIN): a newer Claude Code's unknown line kinds are reported once a run
// and the run goes on; a program that prints no JSON at all ends the run at once (exit 1).
import { afterEach, describe, expect, it } from 'vitest';
import { loopTypes, ofType, RunFixture, single, stories, succeed } from '../../run/helpers.js';
import type { Step } from '../../run/helpers.js';

const CHANGE = 'agent-shapes';

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

/** The fake agent as `claude`, printing stream-json (`claude`) or plain text (`plain`). */
function asClaude(f: RunFixture, format: 'claude' | 'plain'): Record<string, string> {
  return { RALPHTOOL_CLAUDE_BIN: f.agentWrapper(), FAKE_AGENT_FORMAT: format, IS_SANDBOX: '1' };
}

/** What a newer Claude Code might print among the lines ralphtool knows. */
const NEWER: Step[] = [
  { raw: JSON.stringify({ type: 'system', subtype: 'init', claude_code_version: '2.9.0' }) },
  { raw: JSON.stringify({ type: 'thought_summary', text: 'thinking about it' }) },
  { raw: JSON.stringify({ type: 'system', subtype: 'budget_warning', left: 0.2 }) },
  { raw: JSON.stringify({ type: 'thought_summary', text: 'still thinking' }) },
];
const scenario = {
  '1-1': [...NEWER, { signal: 'FAILED: not yet' }],
  '1-2': [...NEWER, ...succeed('src/a.txt', 'a\n')],
  '2-1': [...NEWER, ...succeed('src/b.txt', 'b\n')],
};
const HINT =
  "Claude Code 2.9.0 printed lines this ralphtool does not know; they are skipped and the attempt goes on: if the agent's work is misread, upgrade ralphtool, or pin Claude Code to 2.1.197, the version this ralphtool knows";

describe('ralphtool run: an agent printing lines of unknown kinds', () => {
  it('reports each kind once a run with --json, and the run completes', async () => {
    fixture = new RunFixture(CHANGE, stories(2)).scenario(scenario);
    const f = fixture;
    const result = await f.run(['--json', '--agent', 'claude', '--on-complete', 'keep'], {
      agent: false,
      env: asClaude(f, 'claude'),
    });
    expect(result.exitCode).toBe(0);
    const events = result.events();
    // Three attempts each printed both kinds, thought_summary twice: each kind said once.
    expect(ofType(events, 'agent.unrecognised')).toEqual([
      expect.objectContaining({
        storyId: '1',
        attempt: 1,
        agent: 'claude',
        what: 'thought_summary',
        hint: HINT,
      }),
      expect.objectContaining({ storyId: '1', attempt: 1, what: 'system/budget_warning' }),
    ]);
    // Never judged: the attempts failed and passed on their own signals.
    expect(single(events, 'attempt.failed')).toMatchObject({ kind: 'failed-signal' });
    expect(ofType(events, 'story.completed')).toHaveLength(2);
    expect(ofType(events, 'error')).toEqual([]);
    expect(single(events, 'run.finished')).toMatchObject({ outcome: 'complete' });
  });

  it('prints one warning line per kind without --json', async () => {
    fixture = new RunFixture(CHANGE, stories(2)).scenario(scenario);
    const f = fixture;
    const result = await f.run(['--agent', 'claude', '--on-complete', 'keep'], {
      agent: false,
      env: asClaude(f, 'claude'),
    });
    expect(result.exitCode).toBe(0);
    const warnings = result.stdout.split('\n').filter((line) => line.includes('⚠'));
    expect(warnings).toEqual([
      `  ⚠ unknown agent output (thought_summary): ${HINT}`,
      `  ⚠ unknown agent output (system/budget_warning): ${HINT}`,
    ]);
  });
});

describe('ralphtool run: a `claude` that prints no JSON', () => {
  it('stops the first attempt within seconds and ends the run (exit 1), saying what to check', async () => {
    fixture = new RunFixture(CHANGE, stories(2)).scenario({
      '*': [
        { write: 'src/partial.txt', content: 'partial\n' },
        { say: 'Claude Code 0.2.9' },
        { say: 'Usage: claude [options] [prompt]' },
        { say: "error: unknown option '--output-format'" },
        { hang: true },
      ],
    });
    const f = fixture;
    const started = Date.now();
    const result = await f.run(['--json', '--agent', 'claude', '--max-retries', '3'], {
      agent: false,
      env: asClaude(f, 'plain'),
    });
    // 5 s after its lines of text, far from the 15-minute idle timeout.
    expect(Date.now() - started).toBeLessThan(30_000);
    expect(result.exitCode).toBe(1);
    const events = result.events();
    const reason = `Claude Code printed no JSON events (first line: "Claude Code 0.2.9"): is \`${f.agentWrapper()}\` the Claude Code CLI, and a version that supports --output-format stream-json? Check \`${f.agentWrapper()} --version\`; install Claude Code with \`npm install -g @anthropic-ai/claude-code\`, or point RALPHTOOL_CLAUDE_BIN at it.`;
    // Retrying cannot help: one attempt, its work reverted, the run kept for `resume`.
    expect(ofType(events, 'story.started')).toHaveLength(1);
    expect(single(events, 'attempt.failed')).toMatchObject({ kind: 'agent-error', reason });
    expect(ofType(events, 'error')).toEqual([
      expect.objectContaining({ message: reason, fatal: true }),
    ]);
    expect(loopTypes(events).at(-1)).toBe('run.finished');
    expect(single(events, 'run.finished')).toMatchObject({ outcome: 'error', choice: null });
    expect(f.exists('src/partial.txt')).toBe(false);
    expect(f.state()).toMatchObject({ status: 'active', outcome: 'error' });
  });
});
