import { afterEach, describe, expect, it } from 'vitest';
import { ALL_SUCCEED, FaultWorld } from './support/world.js';

// Row 3: the agent is killed in the middle of a `git add` and leaves `.git/index.lock` behind.
// No git process holds that lock any more, so the revert must get past it (removing it) and
// the run must carry on.

const CHANGE = 'index-lock';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

describe('the agent leaves .git/index.lock behind', () => {
  it('the revert removes the stale lock, restores the checkpoint and the next attempt succeeds', async () => {
    world = new FaultWorld(CHANGE, 2).scenario({
      '1-1': [
        { write: 'src/half.txt', content: 'half\n' },
        { write: '.git/index.lock', content: '' },
        { signal: 'FAILED: git add was killed' },
      ],
      ...ALL_SUCCEED,
    });
    const w = world;
    const result = await w.loop('run');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.exists('.git/index.lock')).toBe(false);
    const reverted = result.events().filter((e) => e.type === 'checkpoint.reverted');
    expect(reverted.map((e) => [e.storyId, e.attempt])).toEqual([['1', 1]]);
    expect(w.git('show', `refs/ralphtool/${CHANGE}/attempts/1-1:src/half.txt`)).toBe('half\n');
    expect(w.subjects(`main..${w.branch}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
    expect(w.treeFiles(w.branch)).not.toContain('src/half.txt');
    expect(w.status()).toEqual([]);
    expect(w.userFilesChanged()).toEqual([]);
    expect(w.state()).toMatchObject({ status: 'finished', outcome: 'complete', step: null });
  });

  it('a lock left by a story that completed does not stop the checkpoint', async () => {
    world = new FaultWorld(CHANGE, 2).scenario({
      '1-1': [
        { write: 'src/one.txt', content: 'one\n' },
        { tick: 'all' },
        { write: '.git/index.lock', content: '' },
        { signal: 'COMPLETE' },
      ],
      ...ALL_SUCCEED,
    });
    const w = world;
    const result = await w.loop('run');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.exists('.git/index.lock')).toBe(false);
    expect(w.subjects(`main..${w.branch}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
    expect(w.git('show', `${w.branch}~1:src/one.txt`)).toBe('one\n');
    expect(w.status()).toEqual([]);
    expect(w.userFilesChanged()).toEqual([]);
  });
});
