import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { RunFixture, stories, succeed } from '../../run/helpers.js';

// What is knowable before a run starts is refused before it touches git (exit 1): no branch,
// no "initial state" commit, no run folder. Claude Code refuses to run as root without
// IS_SANDBOX=1; this test machine runs as root, so the real check runs (skipped elsewhere).

const CHANGE = 'preflight-checks';
const AS_ROOT = process.getuid?.() === 0;

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

function newFixture(): RunFixture {
  return new RunFixture(CHANGE, stories(2)).scenario({ '*': succeed('src/x.txt', 'x\n') });
}

/** Everything a refused run must leave as it was. */
function snapshot(f: RunFixture): Record<string, unknown> {
  return {
    head: f.git('rev-parse', 'HEAD'),
    branch: f.currentBranch(),
    branches: f.git('branch', '--list'),
    refs: f.git('for-each-ref'),
    status: f.status(),
    runsDir: existsSync(path.join(f.dir, '.git', 'ralphtool')),
  };
}

describe.skipIf(!AS_ROOT)('run as root with the claude agent', () => {
  // Unset, and values Claude Code does not take for "1" (this very machine sets IS_SANDBOX=yes).
  for (const sandbox of [undefined, '', 'yes', 'true', '0']) {
    it(`refuses before touching git with IS_SANDBOX=${JSON.stringify(sandbox)} (exit 1)`, async () => {
      fixture = newFixture();
      const f = fixture;
      const before = snapshot(f);
      const result = await f.run(['--agent', 'claude', '--json'], {
        agent: false,
        env: {
          RALPHTOOL_CLAUDE_BIN: f.agentWrapper(),
          FAKE_AGENT_FORMAT: 'claude',
          IS_SANDBOX: sandbox,
          CLAUDE_CODE_BUBBLEWRAP: undefined,
        },
      });
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain('IS_SANDBOX=1');
      expect(result.stderr).toContain('root');
      expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
      expect(f.invoked('1', 1)).toBe(false);
      expect(snapshot(f)).toEqual(before);
      expect(before.runsDir).toBe(false);
    });
  }

  it('resume of a recorded run is refused the same way, the run left as it was', async () => {
    fixture = new RunFixture(CHANGE, stories(2)).scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
      '2-*': [{ signal: 'FAILED: no' }],
    });
    const f = fixture;
    expect((await f.run(['--json', '--max-retries', '0'])).exitCode).toBe(3);
    f.git('switch', '-q', 'main');
    const before = { ...snapshot(f), state: f.state() };
    const resumed = await runCli(['resume', CHANGE, '--agent', 'claude', '--json'], {
      cwd: f.dir,
      env: f.env({ RALPHTOOL_CLAUDE_BIN: f.agentWrapper(), IS_SANDBOX: undefined }),
    });
    expect(resumed.exitCode).toBe(1);
    expect(resumed.stderr).toContain('IS_SANDBOX=1');
    expect({ ...snapshot(f), state: f.state() }).toEqual(before);
  });
});

describe('an agent whose own CLI says it is not logged in', () => {
  // The fake agent answers `claude auth status` / `codex login status` as the real CLIs do
  // (test/compat/login-status.test.ts reads the real ones).
  for (const agent of ['claude', 'codex'] as const) {
    it(`${agent}: run is refused before touching git (exit 1), with the way to log in`, async () => {
      fixture = newFixture();
      const f = fixture;
      const before = snapshot(f);
      const result = await f.run(['--agent', agent, '--json'], {
        agent: false,
        env: {
          [`RALPHTOOL_${agent.toUpperCase()}_BIN`]: f.agentWrapper(),
          FAKE_AGENT_FORMAT: agent,
          FAKE_AGENT_LOGGED_OUT: '1',
          IS_SANDBOX: '1',
          OPENAI_API_KEY: undefined,
          CODEX_API_KEY: undefined,
          CODEX_HOME: path.join(f.scratch, 'codex-home'),
        },
      });
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toContain(`${agent} is not logged in`);
      expect(result.stderr).toContain(agent === 'claude' ? '`claude auth login`' : '`codex login`');
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(f.invoked('1', 1)).toBe(false);
      expect(snapshot(f)).toEqual(before);
    });
  }

  it('resume too, the run left as it was; logged in again, the resume goes on', async () => {
    fixture = new RunFixture(CHANGE, stories(2)).scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
      '2-1': [{ signal: 'FAILED: no' }],
      '2-2': succeed('src/two.txt', 'two\n'),
    });
    const f = fixture;
    const claude = {
      RALPHTOOL_CLAUDE_BIN: f.agentWrapper(),
      FAKE_AGENT_FORMAT: 'claude',
      IS_SANDBOX: '1',
    };
    const first = await f.run(['--agent', 'claude', '--json', '--max-retries', '0'], {
      agent: false,
      env: claude,
    });
    expect(first.exitCode, first.stderr).toBe(3);
    const before = { ...snapshot(f), state: f.state() };
    const refused = await runCli(['resume', CHANGE, '--max-retries', '1', '--json'], {
      cwd: f.dir,
      env: f.env({ ...claude, FAKE_AGENT_LOGGED_OUT: '1' }),
    });
    expect(refused.exitCode).toBe(1);
    expect(refused.stderr).toContain('claude is not logged in');
    expect({ ...snapshot(f), state: f.state() }).toEqual(before);
    const resumed = await runCli(['resume', CHANGE, '--max-retries', '1', '--json'], {
      cwd: f.dir,
      env: f.env(claude),
    });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
  });
});

describe('run with a --verify program that is not on PATH', () => {
  it('refuses before touching git (exit 1), naming the program', async () => {
    fixture = newFixture();
    const f = fixture;
    const before = snapshot(f);
    const result = await f.run(['--json', '--verify', 'no-such-checker-xyz --all']);
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('no-such-checker-xyz');
    expect(result.stderr).toContain('--verify');
    expect(f.invoked('1', 1)).toBe(false);
    expect(snapshot(f)).toEqual(before);
  });

  it('a relative --verify path is not refused: the run may create it', async () => {
    fixture = newFixture();
    const f = fixture;
    const result = await f.run(['--json', '--max-retries', '0', '--verify', './check.sh']);
    expect(result.stderr).not.toContain('was not found');
    expect(result.events().some((e) => e.type === 'run.started')).toBe(true);
  });
});
