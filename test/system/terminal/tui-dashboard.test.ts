import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../support/cli.js';
import { fakeAgentFlags, type Scenario } from '../../support/fake-agent.js';
import { TmuxSession, tmuxAvailable } from '../../support/tmux.js';
import { ManyFixture } from '../worktree/many-fixture.js';

/**
 * Several changes from the interactive UI, in a real terminal: mark three on the list, start
 * them (two at a time, each in its own worktree), watch the dashboard's rows move, open one
 * run's loop screen and come back, then keep all three, and find the branches as a user would.
 */
describe.skipIf(!tmuxAvailable())('the dashboard under tmux', () => {
  let fixture: ManyFixture | undefined;
  let session: TmuxSession | undefined;

  afterEach(() => {
    session?.kill();
    fixture?.remove();
  });

  it('marks three changes, runs them together, opens one, keeps all', async () => {
    fixture = new ManyFixture({ alpha: 2, beta: 2, gamma: 2 });
    const f = fixture;
    const gate = (change: string): string => path.join(f.scratch, `go-${change}`);
    // Story 1 of each change says it is at work, then waits for the test to let it finish.
    const scenarioOf = (change: string): Scenario => ({
      '1-*': [
        { say: `${change} at work on story one` },
        { waitFor: gate(change) },
        { write: `${change}-1.txt`, content: `${change} one\n` },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
      '2-*': [
        { say: `${change} on story two` },
        { write: `${change}-2.txt`, content: `${change} two\n` },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    f.scenarios({
      alpha: scenarioOf('alpha'),
      beta: scenarioOf('beta'),
      gamma: scenarioOf('gamma'),
    });
    // The user's own uncommitted work, which no run may touch.
    f.repo.write('notes.txt', 'my notes\n');
    const env = Object.fromEntries(
      Object.entries({ ...f.env(), NO_COLOR: '1' }).filter(
        (e): e is [string, string] => e[1] !== undefined,
      ),
    );
    session = TmuxSession.start(
      `ralphtool-dashboard-${process.pid}`,
      [process.execPath, CLI_PATH, ...fakeAgentFlags(), '--parallel', '2'],
      { cwd: f.dir, env, width: 120, height: 32 },
    );
    const s = session;

    await s.waitFor(/› alpha/);
    s.keys('a');
    await s.waitFor(/s start 3 marked/);
    s.keys('s');

    // Two at a time: alpha and beta at work, gamma queued.
    const rows = await s.waitFor(
      (screen) =>
        screen.includes('alpha at work on story one') &&
        screen.includes('beta at work on story one') &&
        /gamma\s+queued/.test(screen),
      60_000,
    );
    expect(rows).toMatch(/3 runs · each in its own worktree/);
    expect(rows).toMatch(/alpha\s+running\s+0\/2\s+1\s/);

    // Enter opens beta's loop screen; Esc goes back to the dashboard.
    s.keys('Down', 'Enter');
    await s.waitFor(/ralphtool › beta/);
    // Its Info tab: the story's tasks as read in beta's worktree.
    await s.waitFor(/Tasks 0\/1:/);
    s.keys('Tab');
    await s.waitFor(/beta at work on story one/);
    s.keys('Escape');
    await s.waitFor(/3 runs · each in its own worktree/);

    // Let every run go on: gamma starts once a slot is free, all three end and ask.
    for (const change of ['alpha', 'beta', 'gamma']) writeFileSync(gate(change), '');
    const asked = await s.waitFor(
      (screen) =>
        ['alpha', 'beta', 'gamma'].every((c) =>
          new RegExp(`${c}\\s+complete: choose c/k`).test(screen),
        ) && screen.includes('apply cleanly'),
      120_000,
    );
    expect(asked).toMatch(/C\/K all/);

    // K: keep, for all three.
    s.keys('K');
    const result = await s.waitFor(/3 runs › result/, 120_000);
    for (const change of ['alpha', 'beta', 'gamma']) {
      expect(result).toMatch(
        new RegExp(`${change}\\s+done: complete\\s+2/2 stories · kept on ralph/${change}`),
      );
    }

    s.keys('q');
    expect(await s.waitForExit(30_000)).toBe(0);

    // Each branch has exactly its two stories' checkpoints on top of the run's initial state
    // (from main); the user is on main with their notes as they were.
    for (const change of ['alpha', 'beta', 'gamma']) {
      const commits = f.git('log', '--format=%s', `main..ralph/${change}`).trim().split('\n');
      expect(commits).toEqual(['checkpoint: 2', 'checkpoint: 1', 'initial state']);
      expect(f.git('show', `ralph/${change}:${change}-2.txt`)).toBe(`${change} two\n`);
    }
    expect(f.git('rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
    expect(readFileSync(path.join(f.dir, 'notes.txt'), 'utf8')).toBe('my notes\n');
    expect(f.git('status', '--porcelain').trim()).toBe('?? notes.txt');
  }, 300_000);

  it('q stops every run: each reverted to its checkpoint, each asks, K keeps them all', async () => {
    fixture = new ManyFixture({ alpha: 2, beta: 2 });
    const f = fixture;
    const hanging = (change: string): Scenario => ({
      '1-*': [
        { write: `${change}-1.txt`, content: 'done\n' },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
      '2-*': [
        { write: `${change}-half.txt`, content: 'half done\n' },
        { say: `${change} thinking` },
        { hang: true },
      ],
    });
    f.scenarios({ alpha: hanging('alpha'), beta: hanging('beta') });
    const env = Object.fromEntries(
      Object.entries({ ...f.env(), NO_COLOR: '1' }).filter(
        (e): e is [string, string] => e[1] !== undefined,
      ),
    );
    session = TmuxSession.start(
      `ralphtool-dashboard-stop-${process.pid}`,
      [process.execPath, CLI_PATH, ...fakeAgentFlags()],
      { cwd: f.dir, env, width: 120, height: 32 },
    );
    const s = session;
    await s.waitFor(/› alpha/);
    s.keys('a');
    await s.waitFor(/s start 2 marked/);
    s.keys('s');
    await s.waitFor(
      (screen) => screen.includes('alpha thinking') && screen.includes('beta thinking'),
      60_000,
    );

    s.keys('q');
    const asked = await s.waitFor(
      (screen) =>
        /alpha\s+stopped: choose c\/k/.test(screen) && /beta\s+stopped: choose c\/k/.test(screen),
      60_000,
    );
    expect(asked).toContain('stopping every run');
    s.keys('K');
    const result = await s.waitFor(/2 runs › result/, 60_000);
    expect(result).toMatch(/alpha\s+done: stopped\s+1\/2 stories · kept on ralph\/alpha/);
    s.keys('q');
    expect(await s.waitForExit(30_000)).toBe(130);

    for (const change of ['alpha', 'beta']) {
      // The accepted story stays; the interrupted attempt is saved under a ref and not on the branch.
      expect(f.git('log', '--format=%s', `main..ralph/${change}`).trim().split('\n')).toEqual([
        'checkpoint: 1',
        'initial state',
      ]);
      expect(f.git('ls-tree', '--name-only', `ralph/${change}`)).not.toContain('half.txt');
      expect(f.git('for-each-ref', `refs/ralphtool/${change}/attempts/`)).toMatch(/attempts/);
    }
  }, 300_000);

  it('a bad --parallel is refused before the UI opens: one line, exit 2', async () => {
    fixture = new ManyFixture({ alpha: 1 });
    const env = Object.fromEntries(
      Object.entries({ ...fixture.env(), NO_COLOR: '1' }).filter(
        (e): e is [string, string] => e[1] !== undefined,
      ),
    );
    for (const bad of ['0', '17', 'two']) {
      session?.kill();
      session = TmuxSession.start(
        `ralphtool-dashboard-bad-${process.pid}`,
        [process.execPath, CLI_PATH, '--parallel', bad],
        { cwd: fixture.dir, env, width: 200, height: 20 },
      );
      expect(await session.waitForExit(30_000)).toBe(2);
      const screen = await session.waitForText('--parallel:');
      expect(screen).toContain('is not a whole number from 1 to 16');
      expect(screen).not.toContain('changes in this repository');
      expect(screen).not.toMatch(/\bat .*\.js:\d+/);
    }
  });
});
