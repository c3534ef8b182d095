import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { killGroup } from '../../support/processes.js';
import { stories, succeed } from '../../run/helpers.js';
import { crashOnA, remoteState, RemoteWorld, type Machine } from './world.js';

// Continue anywhere (docs/contract.md): machine A dies with `kill -9` in the middle of a story;
// another machine, a fresh clone of the remote, continues or ends the run from the remote alone.

const CHANGE = 'anywhere';
let world: RemoteWorld | undefined;
const groups: number[] = [];
afterEach(() => {
  for (const pgid of groups.splice(0)) killGroup(pgid);
  world?.remove();
  world = undefined;
});

function subjects(m: Machine, range: string): string[] {
  return m
    .git('log', '--reverse', '--format=%s', range)
    .split('\n')
    .filter((l) => l !== '');
}

describe('resume --from origin on another machine', { timeout: 240_000 }, () => {
  it('finishes the run A left half-way: every story once, the attempt counts carried on', async () => {
    world = new RemoteWorld(CHANGE, stories(3));
    const w = world;
    await crashOnA(w, CHANGE);

    const b = w.clone('b');
    const resumed = await w.on(b, [
      'resume',
      CHANGE,
      '--from',
      'origin',
      '--on-complete',
      'keep',
      '--json',
    ]);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`fetched the run of ${CHANGE} from origin`);
    // A's claim names this host and a dead process: taken over at once.
    expect(resumed.stderr).toContain('on this host is gone');

    expect(subjects(b, `main..ralph/${CHANGE}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
      'checkpoint: 3',
    ]);
    expect(b.git('show', `ralph/${CHANGE}:src/two.txt`)).toBe('two\n');
    // A's half-done attempt is saved as its attempt ref, and never reached the branch.
    expect(resumed.stderr).toContain(`is saved as refs/ralphtool/${CHANGE}/attempts/2-1`);
    expect(b.git('show', `refs/ralphtool/${CHANGE}/attempts/2-1:src/two-half.txt`)).toBe('half\n');
    expect(b.git('ls-tree', '-r', '--name-only', `ralph/${CHANGE}`)).not.toContain('two-half');
    expect(w.remoteRefs().has(`refs/ralphtool/${CHANGE}/attempts/2-1`)).toBe(true);
    expect(w.remoteRefs().has(`refs/ralphtool/${CHANGE}/progress`)).toBe(false);
    // Attempt 1 of story 2 was A's (counted when it began); B made attempt 2.
    expect(w.invoked('2', 2)).toBe(true);
    const state = JSON.parse(b.git('show', `refs/ralphtool/${CHANGE}/record:state.json`)) as {
      stories: Record<string, { attempts: number }>;
      status: string;
      host: string;
    };
    expect(state.stories['2']?.attempts).toBe(2);
    expect(state.status).toBe('finished');
    // The remote holds B's end: the branch, the finished record, no claim.
    const refs = w.remoteRefs();
    expect(refs.get(`refs/heads/ralph/${CHANGE}`)).toBe(
      b.git('rev-parse', `ralph/${CHANGE}`).trim(),
    );
    expect(remoteState(w, CHANGE)).toMatchObject({ status: 'finished', choice: 'keep' });
    expect(refs.has(`refs/ralphtool/${CHANGE}/claim`)).toBe(false);
  });

  it('refuses what it cannot continue, changing nothing', async () => {
    world = new RemoteWorld(CHANGE, stories(1));
    const w = world.scenario({ '1-1': succeed('src/one.txt', 'one\n') });
    const b = w.clone('b');
    // Nothing recorded on the remote yet.
    const none = await w.on(b, ['resume', CHANGE, '--from', 'origin', '--on-complete', 'keep']);
    expect(none.exitCode, none.stderr).toBe(1);
    expect(none.stderr).toContain(`no run of ${CHANGE} is recorded on origin`);
    expect(none.stderr).not.toMatch(/\n\s+at /);

    // A finished run is not continued.
    const done = await w.run(['--push', 'origin', '--on-complete', 'keep']);
    expect(done.exitCode, done.stderr).toBe(0);
    const finished = await w.on(b, ['resume', CHANGE, '--from', 'origin', '--on-complete', 'keep']);
    expect(finished.exitCode, finished.stderr).toBe(2);
    expect(finished.stderr).toContain('is finished');

    // Uncommitted work in this work tree is never carried or lost.
    writeFileSync(path.join(b.dir, 'mine.txt'), 'mine\n');
    const dirty = await w.on(b, ['resume', CHANGE, '--from', 'origin']);
    expect(dirty.exitCode, dirty.stderr).toBe(2);
    expect(dirty.stderr).toContain('uncommitted changes (mine.txt)');
    expect(b.git('status', '--porcelain').trim()).toBe('?? mine.txt');
    expect(b.git('branch', '--show-current').trim()).toBe('main');
    expect(existsSync(path.join(b.dir, '.git', 'ralphtool', CHANGE))).toBe(false);
  });
});

describe('finish --from origin on a third machine', { timeout: 240_000 }, () => {
  it('--keep ends the run there: its branch at the last checkpoint, the remote told', async () => {
    world = new RemoteWorld(CHANGE, stories(3));
    const w = world;
    await crashOnA(w, CHANGE);
    const c = w.clone('c');
    const finished = await w.on(c, ['finish', CHANGE, '--from', 'origin', '--keep']);
    expect(finished.exitCode, finished.stderr).toBe(0);
    expect(subjects(c, `main..ralph/${CHANGE}`)).toEqual(['initial state', 'checkpoint: 1']);
    expect(c.git('branch', '--show-current').trim()).toBe(`ralph/${CHANGE}`);
    expect(c.git('status', '--porcelain').trim()).toBe('');
    expect(remoteState(w, CHANGE)).toMatchObject({ status: 'finished', choice: 'keep' });
    expect(w.remoteRefs().has(`refs/ralphtool/${CHANGE}/claim`)).toBe(false);
    expect(c.git('show', `refs/ralphtool/${CHANGE}/attempts/2-1:src/two-half.txt`)).toBe('half\n');
    expect(w.remoteRefs().has(`refs/ralphtool/${CHANGE}/progress`)).toBe(false);
  });

  it('--cleanup brings the work onto main, uncommitted', async () => {
    world = new RemoteWorld(CHANGE, stories(3));
    const w = world;
    await crashOnA(w, CHANGE);
    const c = w.clone('c');
    const finished = await w.on(c, ['finish', CHANGE, '--from', 'origin', '--cleanup']);
    expect(finished.exitCode, finished.stderr).toBe(0);
    expect(c.git('branch', '--show-current').trim()).toBe('main');
    expect(c.git('status', '--porcelain')).toContain('src/one.txt');
    expect(remoteState(w, CHANGE)).toMatchObject({ status: 'finished', choice: 'cleanup' });
  });
});
