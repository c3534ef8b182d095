import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { loopTypes, ofType, RunFixture, single, stories } from '../../run/helpers.js';

const CHANGE = 'agent-errors';

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

/** Runs the fake agent as `claude` speaking stream-json. */
function runAsClaude(f: RunFixture, args: string[]): ReturnType<RunFixture['run']> {
  return f.run(['--json', '--agent', 'claude', ...args], {
    agent: false,
    env: { RALPHTOOL_CLAUDE_BIN: f.agentWrapper(), FAKE_AGENT_FORMAT: 'claude', IS_SANDBOX: '1' },
  });
}

describe('ralphtool run --agent claude: Claude Code retrying the API', () => {
  // The shape the real binary prints (test/fixtures/agents/claude-rate-limit-retry.ndjson).
  const retry = (attempt: number): string =>
    JSON.stringify({
      type: 'system',
      subtype: 'api_retry',
      attempt,
      max_retries: 10,
      retry_delay_ms: 2000,
      error_status: 429,
      error: 'rate_limit',
      session_id: '5d6a416e-f67e-468c-b73a-d39081cb4c70',
      uuid: '8f476f64-7ab1-43aa-ab4c-54a4001a541f',
    });
  const scenario = {
    '*': [
      { raw: retry(1) },
      { raw: retry(2) },
      { write: 'src/a.txt', content: 'a\n' },
      { tick: 'all' },
      { signal: 'COMPLETE' },
    ],
  };

  it('writes each retry as an agent.notice event with --json', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario(scenario);
    const result = await runAsClaude(fixture, ['--on-complete', 'keep']);
    expect(result.exitCode).toBe(0);
    expect(ofType(result.events(), 'agent.notice')).toEqual([
      expect.objectContaining({
        storyId: '1',
        attempt: 1,
        text: 'API 429 (rate_limit) — Claude Code retrying 1/10 in 2s',
      }),
      expect.objectContaining({ text: 'API 429 (rate_limit) — Claude Code retrying 2/10 in 2s' }),
    ]);
    // A retry is no error: the attempt still succeeds on what the agent did.
    expect(ofType(result.events(), 'error')).toEqual([]);
  });

  it('prints each retry under its story without --json', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario(scenario);
    const result = await fixture.run(['--agent', 'claude', '--on-complete', 'keep'], {
      agent: false,
      env: {
        RALPHTOOL_CLAUDE_BIN: fixture.agentWrapper(),
        FAKE_AGENT_FORMAT: 'claude',
        IS_SANDBOX: '1',
      },
    });
    expect(result.exitCode).toBe(0);
    expect(result.stdout).toContain('  ⟳ API 429 (rate_limit) — Claude Code retrying 1/10 in 2s');
    expect(result.stdout).toContain('  ⟳ API 429 (rate_limit) — Claude Code retrying 2/10 in 2s');
  });
});

describe('ralphtool run --agent claude', () => {
  it('ends the run at once on an authentication failure (exit 1), saying how to log in, the run kept for resume', async () => {
    fixture = new RunFixture(CHANGE, stories(2)).scenario({
      '*': [
        { write: 'src/partial.txt', content: 'partial\n' },
        { isError: 'Invalid API key · Please run /login' },
      ],
    });
    const f = fixture;
    const result = await runAsClaude(f, [
      '--max-retries',
      '3',
      '--on-complete',
      'cleanup',
      '--model',
      'fake-model',
    ]);
    expect(result.exitCode).toBe(1);
    // --model reaches the agent's command line.
    const invocation = JSON.parse(
      readFileSync(path.join(f.logDir, 'invocation-1-1.json'), 'utf8'),
    ) as { argv: string[] };
    expect(invocation.argv.join(' ')).toContain('--model fake-model');
    // With --json everything is an event on stdout: nothing on stderr, even for a claude stream.
    expect(result.stderr).toBe('');
    const events = result.events();
    // One attempt only: retrying cannot fix a login.
    expect(ofType(events, 'story.started')).toHaveLength(1);
    expect(f.invoked('1', 2)).toBe(false);
    const fatal = ofType(events, 'error').filter((e) => e.fatal === true);
    expect(fatal).toHaveLength(1);
    expect(String(fatal[0]?.message)).toMatch(/log in|login/i);
    // No completion choice: after logging in, `resume` carries on (or `finish` ends it).
    expect(ofType(events, 'run.awaiting-choice')).toEqual([]);
    expect(loopTypes(events).at(-1)).toBe('run.finished');
    expect(single(events, 'run.finished')).toMatchObject({
      outcome: 'error',
      choice: null,
      storiesCompleted: 0,
    });
    expect(f.currentBranch()).toBe(`ralph/${CHANGE}`);
    expect(f.subjects(`main..ralph/${CHANGE}`)).toEqual(['initial state']);
    expect(f.status()).toEqual([]);
    expect(f.exists('src/partial.txt')).toBe(false);
    expect(f.state()).toMatchObject({ status: 'active', outcome: 'error' });
  });
});
