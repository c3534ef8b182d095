import { killGroup, recordedAgentGroup } from '../../support/processes.js';
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { initialRunState } from '../../../src/checkpoint/start.js';
import { runCli, type CliRun } from '../../support/cli.js';
import { groupMembers } from '../../support/processes.js';
import {
  eventually,
  fakeAgentFlags,
  RunFixture,
  stories,
  succeed,
  type Step,
} from '../../run/helpers.js';

// Crash safety of a run in a worktree of its own, and the user's own work tree during it.

const CHANGE = 'add-widgets';
let fixture: RunFixture | undefined;
const strays: number[] = [];
afterEach(() => {
  for (const pgid of strays.splice(0)) killGroup(pgid);
  fixture?.remove();
  fixture = undefined;
});

function worktreeOf(f: RunFixture): string {
  return `${f.dir}.ralph/${CHANGE}`;
}

function cli(f: RunFixture, args: readonly string[]): Promise<CliRun> {
  return runCli(args, { cwd: f.dir, env: f.env(), timeoutMs: 240_000 });
}

/** Every file of the user's work tree (not .git) with its bytes, sorted. */
function files(dir: string, below = ''): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(path.join(dir, below), { withFileTypes: true })) {
    const rel = path.posix.join(below, entry.name);
    if (rel === '.git') continue;
    if (entry.isDirectory()) out.push(...files(dir, rel));
    else out.push(`${rel}\n${readFileSync(path.join(dir, rel)).toString('base64')}`);
  }
  return out.sort();
}

/** The user's side: files, index, HEAD and its branch. */
function userSide(f: RunFixture): Record<string, unknown> {
  return {
    files: files(f.dir),
    cached: f.git('diff', '--cached', '--binary'),
    status: f.git('status', '--porcelain', '--untracked-files=all', '--ignored'),
    head: f.git('symbolic-ref', 'HEAD').trim(),
    sha: f.sha('HEAD'),
  };
}

describe('kill -9 of ralphtool mid-story in a worktree', () => {
  it('status shows the run in its worktree; resume from the user tree kills the orphan agent, saves the half-done attempt and finishes', async () => {
    fixture = new RunFixture(CHANGE, stories(3, 1)).scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
      '2-1': [
        { write: 'src/half.txt', content: 'half-way\n' },
        { append: 'src/app.txt', content: 'broken by the agent\n' },
        { say: 'writing story 2' },
        { hang: true, withChild: true },
      ],
    });
    const f = fixture;
    const before = userSide(f);
    const live = f.spawn(['--worktree', '--json']);
    await live.waitFor((e) => e.type === 'agent.message' && e.text === 'writing story 2');
    const pgid = await recordedAgentGroup(() => f.state());
    await live.kill9();
    strays.push(pgid);
    expect(groupMembers(pgid).length).toBeGreaterThan(0);

    const status = await cli(f, ['status', '--json']);
    const run = (JSON.parse(status.stdout) as { runs: Record<string, unknown>[] }).runs[0];
    expect(run).toMatchObject({
      state: 'interrupted',
      currentStory: '2',
      originalBranch: 'main',
      home: { worktree: worktreeOf(f), missing: false, root: f.dir },
    });
    expect(String(run?.next)).toContain(`ralphtool resume ${CHANGE}`);
    const text = await cli(f, ['status']);
    expect(text.stdout).toContain(`in the worktree ${worktreeOf(f)} (from ${f.dir})`);

    f.scenario({ '*': succeed('src/later.txt', 'later\n') });
    const resumed = await cli(f, ['resume', CHANGE, ...fakeAgentFlags()]);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('stopped the agent the interrupted run left running');
    expect(await eventually(() => groupMembers(pgid).length === 0)).toBe(true);
    const ref = `refs/ralphtool/${CHANGE}/attempts/2-1`;
    expect(f.git('show', `${ref}:src/half.txt`)).toBe('half-way\n');
    expect(f.git('log', '--format=%s', `ralph/${CHANGE}`).split('\n').slice(0, 4)).toEqual([
      'checkpoint: 3',
      'checkpoint: 2',
      'checkpoint: 1',
      'initial state',
    ]);
    expect(f.git('show', `ralph/${CHANGE}:src/app.txt`)).toBe('app v1\n');
    expect(f.state()).toMatchObject({ status: 'finished', outcome: 'complete' });
    expect(userSide(f)).toEqual(before);
  });
});

describe("the user's own work tree during a run in a worktree", () => {
  it('edits, additions, deletions and staging in the user tree during the whole run stay byte for byte; HEAD and branch unchanged', async () => {
    fixture = new RunFixture(CHANGE, stories(2, 1), { '.gitignore': '.env\n' });
    const f = fixture;
    const go1 = path.join(f.scratch, 'go1');
    const go2 = path.join(f.scratch, 'go2');
    const waiting = (story: string, go: string, file: string): Step[] => [
      { write: file, content: `${story}\n` },
      { say: `story ${story} waits` },
      { waitFor: go },
      { tick: 'all' },
      { signal: 'COMPLETE' },
    ];
    f.scenario({
      '1-1': waiting('1', go1, 'src/one.txt'),
      '2-1': waiting('2', go2, 'src/two.txt'),
    });
    // The user's work before the start: a change, a staged change, a new file, a secret.
    writeFileSync(path.join(f.dir, 'src/app.txt'), 'app v2 (mine)\n');
    writeFileSync(path.join(f.dir, 'README.md'), '# staged readme\n');
    f.git('add', 'README.md');
    writeFileSync(path.join(f.dir, 'notes.txt'), 'my notes\n');
    writeFileSync(path.join(f.dir, '.env'), 'SECRET=1\n');
    const mainBefore = f.sha('main');

    const live = f.spawn(['--worktree', '--json']);
    await live.waitFor((e) => e.type === 'agent.message' && e.text === 'story 1 waits');
    // While story 1 works: more edits, a deletion, staging, a new folder.
    writeFileSync(path.join(f.dir, 'src/app.txt'), 'app v3 (mine, later)\n');
    rmSync(path.join(f.dir, `openspec/changes/${CHANGE}/proposal.md`));
    f.git('add', 'notes.txt');
    writeFileSync(path.join(f.dir, 'notes.txt'), 'my notes, edited after staging\n');
    writeFileSync(path.join(f.dir, 'src/new-idea.txt'), 'idea\n');
    writeFileSync(go1, '');
    await live.waitFor((e) => e.type === 'agent.message' && e.text === 'story 2 waits');
    // While story 2 works: the user commits nothing, but keeps changing files.
    writeFileSync(path.join(f.dir, 'src/new-idea.txt'), 'idea, second thought\n');
    rmSync(path.join(f.dir, 'src/app.txt'));
    const during = userSide(f);
    writeFileSync(go2, '');
    const ended = await live.exited;
    expect(ended.code, live.stderr).toBe(0);

    expect(userSide(f)).toEqual(during);
    expect(f.sha('main')).toBe(mainBefore);
    expect(f.git('log', '--format=%s', `ralph/${CHANGE}`).split('\n').slice(0, 3)).toEqual([
      'checkpoint: 2',
      'checkpoint: 1',
      'initial state',
    ]);
    // None of the user's uncommitted work entered the run's branch; the secret never did.
    const tree = f.git('ls-tree', '-r', '--name-only', `ralph/${CHANGE}`);
    expect(tree).not.toContain('notes.txt');
    expect(tree).not.toContain('.env');
    expect(tree).not.toContain('new-idea');
    expect(f.git('show', `ralph/${CHANGE}:src/app.txt`)).toBe('app v1\n');
    expect(f.git('show', `ralph/${CHANGE}:README.md`)).toBe('# demo project\n');
  });
});

describe('a start in a worktree killed after its record, before the "initial state" commit', () => {
  /** What the crash leaves: the worktree made at the user's HEAD, the run recorded with step start. */
  function interruptedStart(f: RunFixture): void {
    f.git('worktree', 'add', '-q', '--detach', worktreeOf(f), 'HEAD');
    const head = { kind: 'branch' as const, name: 'main', sha: f.sha('main') };
    const state = initialRunState(
      CHANGE,
      `ralph/${CHANGE}`,
      head,
      { root: worktreeOf(f), gitDir: path.join(f.dir, '.git', 'worktrees', CHANGE) },
      { root: f.dir, gitDir: path.join(f.dir, '.git'), keepWorktree: false },
    );
    mkdirSync(f.runDir, { recursive: true });
    // A pid no process has: the ralphtool that wrote it is gone.
    writeFileSync(
      path.join(f.runDir, 'state.json'),
      JSON.stringify({ ...state, pid: 2 ** 22 + 7 }),
    );
  }

  it('resume from the user tree completes the start in the worktree and the change', async () => {
    fixture = new RunFixture(CHANGE, stories(1, 1)).scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
    });
    const f = fixture;
    interruptedStart(f);
    const before = userSide(f);
    const resumed = await cli(f, ['resume', CHANGE, ...fakeAgentFlags()]);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(f.git('log', '--format=%s', `ralph/${CHANGE}`).split('\n').slice(0, 2)).toEqual([
      'checkpoint: 1',
      'initial state',
    ]);
    expect(f.state()).toMatchObject({ status: 'finished', outcome: 'complete' });
    expect(userSide(f)).toEqual(before);
  });

  it('with its worktree gone too: resume says nothing of the run exists and how to forget it; then run works again', async () => {
    fixture = new RunFixture(CHANGE, stories(1, 1)).scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
    });
    const f = fixture;
    interruptedStart(f);
    rmSync(worktreeOf(f), { recursive: true, force: true });
    const resumed = await cli(f, ['resume', CHANGE, ...fakeAgentFlags()]);
    expect(resumed.exitCode).toBe(2);
    expect(resumed.stderr).toContain('stopped before its first commit');
    expect(resumed.stderr).toContain(`deleting the folder ${f.runDir}`);
    rmSync(f.runDir, { recursive: true, force: true });
    const again = await f.run(['--worktree']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(f.state()).toMatchObject({ status: 'finished', outcome: 'complete' });
  });
});
