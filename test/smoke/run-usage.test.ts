import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { runCliInProcess } from '../support/cli-in-process.js';
import { fakeAgentFlags, RunFixture, stories, succeed } from '../run/helpers.js';

const CHANGE = 'usage-checks';

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

/** With --json, stdout holds NDJSON events or nothing: never a stray line. */
function expectOnlyEvents(result: { events(): unknown }): void {
  expect(() => result.events()).not.toThrow();
}

/** A .git/agent program that runs the fake agent, for relative --agent-command paths. */
function agentInGitDir(f: RunFixture): void {
  const agent = path.join(f.dir, '.git', 'agent');
  writeFileSync(agent, readFileSync(f.agentWrapper()));
  chmodSync(agent, 0o755);
}

// Refusals decided before any process matters: the CLI runs in-process (the program main.ts
// runs, with its output captured). The spawned CLI's refusals follow in their own block.
describe('ralphtool run: bad usage is refused before anything changes', () => {
  it('refuses an unknown change (exit 2)', async () => {
    fixture = newFixture();
    const before = snapshot(fixture);
    const result = await runCliInProcess(['run', 'no-such-change', '--json', ...fakeAgentFlags()], {
      cwd: fixture.dir,
      env: fixture.env(),
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('no-such-change');
    expectOnlyEvents(result);
    expect(snapshot(fixture)).toEqual(before);
    expect(fixture.branchExists('ralph/no-such-change')).toBe(false);
    expect(fixture.invoked('1', 1)).toBe(false);
  });

  it.each([
    ['an invalid change name', ['run', '../x']],
    ['an upper-case change name', ['run', 'Usage-Checks']],
    ['a negative --max-retries', ['run', CHANGE, '--max-retries', '-1']],
    ['a fractional --max-retries', ['run', CHANGE, '--max-retries', '1.5']],
    ['a malformed --agent-timeout', ['run', CHANGE, '--agent-timeout', 'soon']],
    ['an unknown --on-complete', ['run', CHANGE, '--on-complete', 'maybe']],
    ['an unknown --agent', ['run', CHANGE, '--agent', 'gpt']],
    ['--on-complete ask without a terminal to answer on', ['run', CHANGE, '--on-complete', 'ask']],
    [
      'an --agent-timeout longer than a timer can wait',
      ['run', CHANGE, '--agent-timeout', '1000h'],
    ],
    ['an --idle-timeout longer than a timer can wait', ['run', CHANGE, '--idle-timeout', '1000h']],
    ['an unknown --on-limit', ['run', CHANGE, '--on-limit', 'retry']],
    ['a malformed --max-wait', ['run', CHANGE, '--max-wait', 'all night']],
    ['a --max-cost that is no amount', ['run', CHANGE, '--max-cost', 'ten']],
    ['a --max-cost of zero', ['run', CHANGE, '--max-cost', '0']],
    ['a negative --max-story-cost', ['run', CHANGE, '--max-story-cost', '-2']],
    ['a --max-duration of zero', ['run', CHANGE, '--max-duration', '0']],
    ['an empty --notify', ['run', CHANGE, '--notify', '  ']],
    ['a --notify-url that is no URL', ['run', CHANGE, '--notify-url', 'ntfy topic']],
    ['a --notify-url that is not http', ['run', CHANGE, '--notify-url', 'file:///etc/passwd']],
    ['--answer on run (resume only)', ['run', CHANGE, '--answer', 'yes']],
    ['an empty --answer', ['resume', CHANGE, '--answer', ' ']],
    ['an --answer-file that does not exist', ['resume', CHANGE, '--answer-file', 'no/such.md']],
    ['both --answer and --answer-file', ['resume', CHANGE, '--answer', 'a', '--answer-file', 'b']],
  ])('refuses %s (exit 2)', async (_what, args) => {
    fixture = newFixture();
    const before = snapshot(fixture);
    const isAgentFlag = args.includes('--agent');
    const result = await runCliInProcess(
      [...args, '--json', ...(isAgentFlag ? [] : fakeAgentFlags())],
      { cwd: fixture.dir, env: fixture.env() },
    );
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).not.toBe('');
    expectOnlyEvents(result);
    expect(snapshot(fixture)).toEqual(before);
  });

  it.each([
    ['resume', ['resume', CHANGE, ...fakeAgentFlags()]],
    ['finish --keep', ['finish', CHANGE, '--keep']],
    ['finish --cleanup', ['finish', CHANGE, '--cleanup']],
  ])(
    '%s without a recorded run refuses (exit 2) and leaves nothing behind',
    async (_what, args) => {
      fixture = newFixture();
      const before = snapshot(fixture);
      const result = await runCliInProcess(args, { cwd: fixture.dir, env: fixture.env() });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(`no run of ${CHANGE} is recorded`);
      expect(snapshot(fixture)).toEqual(before);
    },
  );

  it('refuses a change without tasks.md, saying that is what is missing (exit 2)', async () => {
    fixture = newFixture();
    const f = fixture;
    const folder = path.join(f.dir, 'openspec', 'changes', 'no-tasks-yet');
    mkdirSync(folder, { recursive: true });
    writeFileSync(path.join(folder, 'proposal.md'), '# No tasks yet\n');
    f.git('add', '-A');
    f.git('commit', '-q', '-m', 'proposal only');
    const before = snapshot(f);
    const result = await runCliInProcess(['run', 'no-tasks-yet', ...fakeAgentFlags()], {
      cwd: f.dir,
      env: f.env(),
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('openspec/changes/no-tasks-yet has no tasks.md');
    expect(snapshot(f)).toEqual(before);
  });

  it('refuses --agent command without --agent-command (exit 2)', async () => {
    fixture = newFixture();
    const before = snapshot(fixture);
    const result = await runCliInProcess(['run', CHANGE, '--agent', 'command'], {
      cwd: fixture.dir,
      env: fixture.env(),
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--agent-command');
    expect(snapshot(fixture)).toEqual(before);
  });

  it('finds a relative --agent-command program where it was typed: from a subdirectory of the repository', async () => {
    fixture = newFixture();
    const f = fixture;
    agentInGitDir(f);
    const result = await runCliInProcess(
      ['run', CHANGE, '--agent-command', '../.git/agent', '--json'],
      { cwd: path.join(f.dir, 'src'), env: f.env() },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(f.invoked('1', 1)).toBe(true);
    expect(f.subjects(`main..ralph/${CHANGE}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
  });

  it('stops with exit 1 and how to install when the claude program is missing, git untouched', async () => {
    fixture = newFixture();
    const before = snapshot(fixture);
    const missing = path.join(fixture.scratch, 'no-such-claude');
    const result = await runCliInProcess(['run', CHANGE, '--agent', 'claude'], {
      cwd: fixture.dir,
      env: fixture.env({ RALPHTOOL_CLAUDE_BIN: missing }),
    });
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/install/i);
    expect(result.stderr).toContain(missing);
    expect(snapshot(fixture)).toEqual(before);
  });

  it('does nothing (exit 0) when every story is already done', async () => {
    fixture = new RunFixture(CHANGE, stories(1), {
      [`openspec/changes/${CHANGE}/tasks.md`]: '## 1. Done\n\n- [x] 1.1 already done\n',
    }).scenario({ '*': succeed('src/x.txt', 'x\n') });
    const before = snapshot(fixture);
    const result = await runCliInProcess(['run', CHANGE, ...fakeAgentFlags(), '--json'], {
      cwd: fixture.dir,
      env: fixture.env(),
    });
    expect(result.exitCode).toBe(0);
    expectOnlyEvents(result);
    expect(snapshot(fixture)).toEqual(before);
    expect(fixture.invoked('1', 1)).toBe(false);
  });

  it('refuses when ralph/<change> exists without a recorded run, saying how to proceed (exit 2)', async () => {
    fixture = newFixture();
    fixture.git('branch', `ralph/${CHANGE}`);
    const before = snapshot(fixture);
    const result = await runCliInProcess(['run', CHANGE, ...fakeAgentFlags(), '--json'], {
      cwd: fixture.dir,
      env: fixture.env(),
    });
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('--force');
    expect(result.stderr).toContain(`git branch -D ralph/${CHANGE}`);
    expect(snapshot(fixture)).toEqual(before);
    expect(fixture.invoked('1', 1)).toBe(false);
  });
});

describe('ralphtool run as a process: where it runs and what it refuses', () => {
  it('refuses a --command-timeout longer than a timer can wait (exit 2)', async () => {
    fixture = newFixture();
    const before = snapshot(fixture);
    const result = await fixture.run(['--command-timeout', '9999999999', '--json']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).not.toBe('');
    expectOnlyEvents(result);
    expect(snapshot(fixture)).toEqual(before);
  });

  it('finds a relative --agent-command program where it was typed: with -C, from another directory', async () => {
    fixture = newFixture();
    const f = fixture;
    agentInGitDir(f);
    const result = await runCli(
      ['-C', f.dir, 'run', CHANGE, '--agent-command', './.git/agent', '--json'],
      { cwd: f.scratch, env: f.env() },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(f.invoked('1', 1)).toBe(true);
    expect(f.subjects(`main..ralph/${CHANGE}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
  });

  it('refuses outside a git work tree (exit 2)', async () => {
    const dir = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ralphtool-nogit-')));
    try {
      const tasks = path.join(dir, 'openspec', 'changes', CHANGE);
      mkdirSync(tasks, { recursive: true });
      writeFileSync(path.join(tasks, 'tasks.md'), '## 1. One\n\n- [ ] 1.1 a task\n');
      const result = await runCli(['run', CHANGE, ...fakeAgentFlags()], {
        cwd: dir,
        env: {
          GIT_DIR: undefined,
          GIT_WORK_TREE: undefined,
          GIT_CEILING_DIRECTORIES: path.dirname(dir),
        },
      });
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toMatch(/git/);
      expect(existsSync(path.join(dir, '.git'))).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
