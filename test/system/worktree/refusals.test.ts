import { killGroup } from '../../support/processes.js';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../../support/cli.js';
import { fakeAgentFlags, RunFixture, stories, succeed, type Scenario } from '../../run/helpers.js';

// What `run --worktree` refuses, and that a refusal leaves everything as it was: no worktree
// left behind, nothing recorded, the user's tree untouched, and `run` works again after.

const CHANGE = 'add-widgets';
let fixture: RunFixture | undefined;
const strays: number[] = [];
afterEach(() => {
  for (const pgid of strays.splice(0)) killGroup(pgid);
  fixture?.remove();
  fixture = undefined;
});

const ONE_SUCCEEDS: Scenario = { '1-*': succeed('src/one.txt', 'one\n') };

function worktreeOf(f: RunFixture): string {
  return `${f.dir}.ralph/${CHANGE}`;
}

/** What a refusal must not change: the user's files, index, HEAD, branches and worktrees. */
function snapshot(f: RunFixture): string {
  return [
    f.git('status', '--porcelain', '--untracked-files=all'),
    f.git('diff', '--cached'),
    f.git('symbolic-ref', 'HEAD'),
    f.git('for-each-ref'),
    f.git('worktree', 'list', '--porcelain'),
  ].join('\n---\n');
}

function expectRefused(result: CliRun, message: string): void {
  expect(result.exitCode, result.stderr).toBe(2);
  expect(result.stderr).toContain(message);
  expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
}

describe('run --worktree refusals leave nothing behind', () => {
  it('an unborn HEAD (no commit to start from)', async () => {
    fixture = new RunFixture(CHANGE, stories(1, 1)).scenario(ONE_SUCCEEDS);
    const f = fixture;
    f.git('checkout', '-q', '--orphan', 'fresh');
    const before = snapshot(f);
    const result = await f.run(['--worktree']);
    expectRefused(result, 'fresh has none yet: make a first commit');
    expect(snapshot(f)).toBe(before);
    expect(existsSync(worktreeOf(f))).toBe(false);
    expect(existsSync(f.runDir)).toBe(false);
  });

  it('a stray folder where the worktree goes: kept byte for byte', async () => {
    fixture = new RunFixture(CHANGE, stories(1, 1)).scenario(ONE_SUCCEEDS);
    const f = fixture;
    mkdirSync(worktreeOf(f), { recursive: true });
    writeFileSync(path.join(worktreeOf(f), 'mine.txt'), 'not ralphtool\n');
    const before = snapshot(f);
    const result = await f.run(['--worktree']);
    expectRefused(result, `${worktreeOf(f)} exists and is not this run's worktree`);
    expect(readFileSync(path.join(worktreeOf(f), 'mine.txt'), 'utf8')).toBe('not ralphtool\n');
    expect(snapshot(f)).toBe(before);
    expect(existsSync(f.runDir)).toBe(false);
  });

  it('a leftover registered worktree at that path (a start killed before its record): the named way out works', async () => {
    fixture = new RunFixture(CHANGE, stories(1, 1)).scenario(ONE_SUCCEEDS);
    const f = fixture;
    f.git('worktree', 'add', '-q', '--detach', worktreeOf(f), 'HEAD');
    const before = snapshot(f);
    const result = await f.run(['--worktree']);
    expectRefused(result, `${worktreeOf(f)} is already a worktree of this repository`);
    expect(snapshot(f)).toBe(before);
    expect(existsSync(f.runDir)).toBe(false);
    // What a kill -9 between the worktree's creation and the run's record leaves: the way out
    // the refusal names works, and `run` works again.
    expect(result.stderr).toContain(`git worktree remove ${worktreeOf(f)}`);
    f.git('worktree', 'remove', worktreeOf(f));
    const again = await f.run(['--worktree']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(f.git('log', '--format=%s', `ralph/${CHANGE}`).split('\n')[0]).toBe('checkpoint: 1');
  });

  it('a run of the change recorded and not finished', async () => {
    fixture = new RunFixture(CHANGE, stories(2, 1)).scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
      '2-*': [{ signal: 'FAILED: no' }],
    });
    const f = fixture;
    const first = await f.run(['--worktree', '--max-retries', '0']);
    expect(first.exitCode).not.toBe(0);
    const state = readFileSync(path.join(f.runDir, 'state.json'), 'utf8');
    const before = snapshot(f);
    const again = await f.run(['--worktree']);
    expectRefused(again, `a run of ${CHANGE} was kept incomplete`);
    expect(readFileSync(path.join(f.runDir, 'state.json'), 'utf8')).toBe(state);
    expect(snapshot(f)).toBe(before);
    expect(existsSync(worktreeOf(f))).toBe(false);
  });

  it('ralph/<change> exists: refused without --force (the worktree goes again, nothing recorded); --force saves the old tip and runs', async () => {
    fixture = new RunFixture(CHANGE, stories(1, 1)).scenario(ONE_SUCCEEDS);
    const f = fixture;
    f.git('branch', `ralph/${CHANGE}`);
    const oldTip = f.sha(`ralph/${CHANGE}`);
    const before = snapshot(f);
    const refused = await f.run(['--worktree']);
    expectRefused(refused, `branch ralph/${CHANGE} already exists`);
    expect(snapshot(f)).toBe(before);
    expect(existsSync(worktreeOf(f))).toBe(false);
    expect(existsSync(f.runDir)).toBe(false);

    const forced = await f.run(['--worktree', '--force', '--json']);
    expect(forced.exitCode, forced.stderr).toBe(0);
    const saved = forced.events().find((e) => e.type === 'run.forced');
    expect(saved).toMatchObject({ oldSha: oldTip });
    expect(f.sha(String(saved?.savedRef))).toBe(oldTip);
    expect(f.git('log', '--format=%s', `ralph/${CHANGE}`).split('\n').slice(0, 2)).toEqual([
      'checkpoint: 1',
      'initial state',
    ]);
    expect(existsSync(worktreeOf(f))).toBe(false); // kept complete: given back
  });
});

describe('locks: one run per change, other changes free', () => {
  it('a second run --worktree of the same change is refused while the first works; a normal run of another change in the user tree goes ahead', async () => {
    const other = 'other-change';
    fixture = new RunFixture(CHANGE, stories(1, 1), {
      [`openspec/changes/${other}/proposal.md`]: `# ${other}\n`,
      [`openspec/changes/${other}/tasks.md`]: '## 1. Other\n\n- [ ] 1.1 Other task\n',
    });
    const f = fixture;
    const go = path.join(f.scratch, 'go');
    f.scenario({
      '1-1': [
        { write: 'src/wt.txt', content: 'from the worktree run\n' },
        { say: 'waiting for go' },
        { waitFor: go },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    const live = f.spawn(['--worktree', '--json']);
    await live.waitFor((e) => e.type === 'agent.message' && e.text === 'waiting for go');

    const second = await f.run(['--worktree']);
    expectRefused(second, `another ralphtool is running ${CHANGE}`);
    expect(readFileSync(path.join(worktreeOf(f), 'src/wt.txt'), 'utf8')).toBe(
      'from the worktree run\n',
    );

    // Another change, run in the user's own work tree meanwhile, with its own agent script.
    const otherScenario = path.join(f.scratch, 'other.json');
    writeFileSync(otherScenario, JSON.stringify({ '1-1': succeed('src/other.txt', 'other\n') }));
    const normal = await runCli(['run', other, ...fakeAgentFlags(), '--on-complete', 'keep'], {
      cwd: f.dir,
      env: f.env({ FAKE_AGENT_SCENARIO: otherScenario }),
      timeoutMs: 240_000,
    });
    expect(normal.exitCode, normal.stderr).toBe(0);
    expect(f.git('log', '--format=%s', `ralph/${other}`).split('\n')[0]).toBe('checkpoint: 1');

    writeFileSync(go, '');
    const ended = await live.exited;
    expect(ended.code, live.stderr).toBe(0);
    expect(f.git('show', `ralph/${CHANGE}:src/wt.txt`)).toBe('from the worktree run\n');
    expect(f.git('ls-tree', '--name-only', `ralph/${CHANGE}`, 'src/')).not.toContain('other');
  });
});
