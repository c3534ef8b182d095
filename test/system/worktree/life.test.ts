import { killGroup, recordedAgentGroup } from '../../support/processes.js';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../../support/cli.js';
import { RunFixture, stories, succeed, type Scenario } from '../../run/helpers.js';

// The life of one run in a worktree of its own (`run --worktree`): what keep does with the
// worktree, a worktree that is gone, status, finish and prune of such a run.

const CHANGE = 'add-widgets';
let fixture: RunFixture | undefined;
/** Agent process groups a killed ralphtool left running, stopped after each test whatever happens. */
const strays: number[] = [];
afterEach(() => {
  for (const pgid of strays.splice(0)) killGroup(pgid);
  fixture?.remove();
  fixture = undefined;
});

const TWO_SUCCEED: Scenario = {
  '1-1': succeed('src/one.txt', 'one\n'),
  '2-*': succeed('src/two.txt', 'two\n'),
};
/** Story 1 succeeds, story 2 fails every attempt: the run stops at max-retries. */
const SECOND_FAILS: Scenario = {
  '1-1': succeed('src/one.txt', 'one\n'),
  '2-*': [{ say: 'trying' }, { signal: 'FAILED: not today' }],
};

function worktreeOf(f: RunFixture): string {
  return `${f.dir}.ralph/${CHANGE}`;
}

function cli(f: RunFixture, args: readonly string[]): Promise<CliRun> {
  return runCli(args, { cwd: f.dir, env: f.env(), timeoutMs: 240_000 });
}

async function statusOf(f: RunFixture): Promise<Record<string, unknown>> {
  const out = await cli(f, ['status', '--json']);
  expect(out.exitCode, out.stderr).toBe(0);
  const runs = (JSON.parse(out.stdout) as { runs: Record<string, unknown>[] }).runs;
  expect(runs).toHaveLength(1);
  return runs[0]!;
}

function registered(f: RunFixture, dir: string): boolean {
  return f.git('worktree', 'list', '--porcelain').split('\n').includes(`worktree ${dir}`);
}

function subjects(f: RunFixture): string[] {
  return f.git('log', '--format=%s', `ralph/${CHANGE}`).trim().split('\n');
}

describe('keep of a run in a worktree of its own', () => {
  it('removes the worktree and leaves ralph/<change>; the summary says so', async () => {
    fixture = new RunFixture(CHANGE, stories(2, 1)).scenario(TWO_SUCCEED);
    const f = fixture;
    const result = await f.run(['--worktree', '--on-complete', 'keep']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(existsSync(worktreeOf(f))).toBe(false);
    expect(registered(f, worktreeOf(f))).toBe(false);
    // The folder of the runs' worktrees goes with its last one: nothing is left beside the repository.
    expect(existsSync(path.dirname(worktreeOf(f)))).toBe(false);
    expect(subjects(f).slice(0, 3)).toEqual(['checkpoint: 2', 'checkpoint: 1', 'initial state']);
    expect(result.stdout).toContain(`the worktree ${worktreeOf(f)} is removed`);
    expect(result.stdout).toContain(`keep: on ralph/${CHANGE}`);
    const status = await statusOf(f);
    expect(status).toMatchObject({
      state: 'finished',
      choice: 'keep',
      originalBranch: 'main',
      home: { worktree: worktreeOf(f), missing: true, root: f.dir },
    });
  });

  it('--json: run.finished carries the worktree and that it is gone', async () => {
    fixture = new RunFixture(CHANGE, stories(1, 1)).scenario(TWO_SUCCEED);
    const f = fixture;
    const result = await f.run(['--worktree', '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    const finished = result.events().find((e) => e.type === 'run.finished');
    expect(finished).toMatchObject({
      choice: 'keep',
      worktree: { root: worktreeOf(f), removed: true },
    });
  });

  it('--keep-worktree leaves it; status shows it kept; finish --prune removes it with the refs and the run folder', async () => {
    fixture = new RunFixture(CHANGE, stories(2, 1)).scenario({
      '1-1': [{ say: 'nope' }, { signal: 'FAILED: first try' }],
      '1-2': succeed('src/one.txt', 'one\n'),
      '2-1': succeed('src/two.txt', 'two\n'),
    });
    const f = fixture;
    const result = await f.run(['--worktree', '--keep-worktree', '--on-complete', 'keep']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(existsSync(path.join(worktreeOf(f), 'src/two.txt'))).toBe(true);
    expect(result.stdout).toContain(`the run's worktree is ${worktreeOf(f)}`);
    const status = await statusOf(f);
    expect(status).toMatchObject({ state: 'finished', home: { missing: false } });
    const text = await cli(f, ['status']);
    expect(text.stdout).toContain(`in the worktree ${worktreeOf(f)} (from ${f.dir}), kept`);
    expect(f.git('for-each-ref', `refs/ralphtool/${CHANGE}/`).trim()).not.toBe('');

    const pruned = await cli(f, ['finish', CHANGE, '--prune']);
    expect(pruned.exitCode, pruned.stderr).toBe(0);
    expect(pruned.stderr).toContain(`removed the run's worktree ${worktreeOf(f)}`);
    expect(existsSync(worktreeOf(f))).toBe(false);
    expect(registered(f, worktreeOf(f))).toBe(false);
    expect(existsSync(f.runDir)).toBe(false);
    expect(f.git('for-each-ref', `refs/ralphtool/${CHANGE}/`).trim()).toBe('');
    expect(subjects(f)[0]).toBe('checkpoint: 2');
  });

  it('git refuses to remove a worktree the user locked: nothing is deleted, the notice says where and why', async () => {
    fixture = new RunFixture(CHANGE, stories(2, 1)).scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
      '2-1': [{ write: 'src/half.txt', content: 'half\n' }, { say: 'working' }, { hang: true }],
    });
    const f = fixture;
    // ralphtool is killed mid-story: the run stays recorded with its worktree.
    const live = f.spawn(['--worktree', '--json']);
    await live.waitFor((e) => e.type === 'agent.message' && e.text === 'working');
    strays.push(await recordedAgentGroup(() => f.state()));
    await live.kill9();
    expect(existsSync(worktreeOf(f))).toBe(true);
    f.git('worktree', 'lock', '--reason', 'on a stick', worktreeOf(f));
    writeFileSync(path.join(worktreeOf(f), 'scratch.txt'), 'the user looked around\n');

    const kept = await cli(f, ['finish', CHANGE, '--keep']);
    expect(kept.exitCode, kept.stderr).toBe(0);
    expect(kept.stderr).toContain(`the worktree ${worktreeOf(f)} stays`);
    expect(kept.stderr).toContain(`its worktree stays at ${worktreeOf(f)}`);
    expect(existsSync(worktreeOf(f))).toBe(true);
    expect(registered(f, worktreeOf(f))).toBe(true);
    expect(f.state()).toMatchObject({ status: 'finished', choice: 'keep' });
    // What the user wrote there was saved by the finish before it reverted (not lost).
    const saved = f.git('for-each-ref', '--format=%(refname)', `refs/ralphtool/${CHANGE}/`);
    const withScratch = saved
      .trim()
      .split('\n')
      .filter((ref) => f.git('ls-tree', '-r', '--name-only', ref).includes('scratch.txt'));
    expect(withScratch).toHaveLength(1);

    const refused = await cli(f, ['finish', CHANGE, '--prune']);
    expect(refused.stderr).toContain(`the worktree ${worktreeOf(f)} stays`);
    expect(existsSync(worktreeOf(f))).toBe(true);
  });
});

describe('a kept-incomplete run gives its worktree back; resume recreates it', () => {
  it('keep at max-retries removes the worktree; status says missing; resume from the user tree recreates it and finishes', async () => {
    fixture = new RunFixture(CHANGE, stories(2, 1)).scenario(SECOND_FAILS);
    const f = fixture;
    const first = await f.run(['--worktree', '--max-retries', '0']);
    expect(first.exitCode).not.toBe(0);
    expect(first.stdout).toContain('(resume recreates it)');
    expect(existsSync(worktreeOf(f))).toBe(false);
    expect(registered(f, worktreeOf(f))).toBe(false);
    expect(f.state()).toMatchObject({ status: 'active', choice: 'keep' });

    const status = await statusOf(f);
    expect(status).toMatchObject({
      state: 'interrupted',
      home: { worktree: worktreeOf(f), missing: true },
      worktree: null,
    });
    expect(String(status.next)).toContain(`resume ${CHANGE}`);
    const text = await cli(f, ['status']);
    expect(text.stdout).toContain('missing; `resume` and `finish` recreate it');

    f.scenario(TWO_SUCCEED);
    // The run's --max-retries 0 is recorded: the advice raises it, and so does this resume.
    expect(first.stdout).toContain(`ralphtool resume ${CHANGE} --max-retries <more>`);
    const resumed = await cli(f, ['resume', CHANGE, '--max-retries', '1']);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`recreated ${worktreeOf(f)} from ralph/${CHANGE}`);
    expect(subjects(f).slice(0, 3)).toEqual(['checkpoint: 2', 'checkpoint: 1', 'initial state']);
    expect(f.state()).toMatchObject({ status: 'finished', choice: 'keep', outcome: 'complete' });
    // Kept complete: the recreated worktree is given back again.
    expect(existsSync(worktreeOf(f))).toBe(false);
  });
});

describe('a worktree the user deleted by hand', () => {
  it('status says missing; finish --keep from the user tree recreates it (git worktree prune) and ends the run', async () => {
    fixture = new RunFixture(CHANGE, stories(2, 1)).scenario(SECOND_FAILS);
    const f = fixture;
    const first = await f.run(['--worktree', '--keep-worktree', '--max-retries', '0']);
    expect(first.exitCode).not.toBe(0);
    rmSync(worktreeOf(f), { recursive: true, force: true });
    expect(registered(f, worktreeOf(f))).toBe(true); // git still lists it

    const status = await statusOf(f);
    expect(status).toMatchObject({ state: 'interrupted', home: { missing: true } });

    const kept = await cli(f, ['finish', CHANGE, '--keep']);
    expect(kept.exitCode, kept.stderr).toBe(0);
    expect(kept.stderr).toContain(`recreated ${worktreeOf(f)}`);
    expect(f.state()).toMatchObject({ status: 'finished', choice: 'keep' });
    // --keep-worktree: the recreated worktree stays, on the run's branch at its checkpoint.
    expect(existsSync(path.join(worktreeOf(f), 'src/one.txt'))).toBe(true);
    expect(f.git('-C', worktreeOf(f), 'symbolic-ref', 'HEAD').trim()).toBe(
      `refs/heads/ralph/${CHANGE}`,
    );
    expect(f.git('-C', worktreeOf(f), 'status', '--porcelain')).toBe('');
  });

  it('resume from the user tree recreates a deleted worktree and finishes from the last checkpoint', async () => {
    fixture = new RunFixture(CHANGE, stories(2, 1)).scenario(SECOND_FAILS);
    const f = fixture;
    const first = await f.run(['--worktree', '--keep-worktree', '--max-retries', '0']);
    rmSync(worktreeOf(f), { recursive: true, force: true });
    f.scenario(TWO_SUCCEED);
    // The run's --max-retries 0 is recorded: the advice raises it, and so does this resume.
    expect(first.stdout).toContain(`ralphtool resume ${CHANGE} --max-retries <more>`);
    const resumed = await cli(f, ['resume', CHANGE, '--max-retries', '1']);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`recreated ${worktreeOf(f)}`);
    expect(subjects(f).slice(0, 3)).toEqual(['checkpoint: 2', 'checkpoint: 1', 'initial state']);
    expect(f.state()).toMatchObject({ status: 'finished', outcome: 'complete' });
  });
});

describe('a new run after a worktree deleted by hand', () => {
  it('run --worktree --force after the kept worktree of a finished run was deleted by hand: git forgets the stale entry, the run works', async () => {
    fixture = new RunFixture(CHANGE, stories(1, 1)).scenario(TWO_SUCCEED);
    const f = fixture;
    const first = await f.run(['--worktree', '--keep-worktree']);
    expect(first.exitCode, first.stderr).toBe(0);
    rmSync(worktreeOf(f), { recursive: true, force: true });
    expect(registered(f, worktreeOf(f))).toBe(true);
    const again = await f.run(['--worktree', '--force']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(f.state()).toMatchObject({ status: 'finished', outcome: 'complete' });
    expect(existsSync(worktreeOf(f))).toBe(false);
  });
});

describe('finish of a run in a worktree, from the user tree', () => {
  it('finish --keep after kill -9: the half-done attempt saved, the branch kept, the worktree removed', async () => {
    fixture = new RunFixture(CHANGE, stories(2, 1)).scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
      '2-1': [{ write: 'src/half.txt', content: 'half\n' }, { say: 'working' }, { hang: true }],
    });
    const f = fixture;
    const live = f.spawn(['--worktree', '--json']);
    await live.waitFor((e) => e.type === 'agent.message' && e.text === 'working');
    strays.push(await recordedAgentGroup(() => f.state()));
    await live.kill9();

    const kept = await cli(f, ['finish', CHANGE, '--keep']);
    expect(kept.exitCode, kept.stderr).toBe(0);
    expect(kept.stderr).toContain('stopped the agent the interrupted run left running');
    expect(kept.stderr).toContain(`its worktree ${worktreeOf(f)} is removed`);
    expect(existsSync(worktreeOf(f))).toBe(false);
    expect(registered(f, worktreeOf(f))).toBe(false);
    expect(f.git('show', `refs/ralphtool/${CHANGE}/attempts/2-1:src/half.txt`)).toBe('half\n');
    expect(subjects(f).slice(0, 2)).toEqual(['checkpoint: 1', 'initial state']);
    expect(f.state()).toMatchObject({ status: 'finished', choice: 'keep' });

    const pruned = await cli(f, ['finish', CHANGE, '--prune']);
    expect(pruned.exitCode, pruned.stderr).toBe(0);
    expect(existsSync(f.runDir)).toBe(false);
    expect(f.git('for-each-ref', `refs/ralphtool/${CHANGE}/`).trim()).toBe('');
  });
});
