import { afterEach, describe, expect, it } from 'vitest';
import { crashWhileAgentRuns } from './support/crash.js';
import { ALL_SUCCEED, FaultWorld, succeed } from './support/world.js';

// Row 6: the user edits files while a run is active. Documented behaviour: ralphtool cannot
// tell the user's edits from the agent's, so an edit made during an attempt belongs to that
// attempt: it lands in the story's checkpoint when the attempt is accepted, and is saved under
// the attempt's ref when the attempt is reverted. Between attempts (and while a crashed run
// waits for `resume`) an edit is found by the check before the next attempt and saved under a
// ref the same way. Never silently destroyed.

const CHANGE = 'user-edits';
const REF = `refs/ralphtool/${CHANGE}/attempts`;

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

/** A run killed with -9 while the agent works on story 2 (story 1 has its checkpoint). */
async function crashedDuringStoryTwo(): Promise<FaultWorld> {
  world = new FaultWorld(CHANGE, 2).scenario({
    '1-1': succeed('src/one.txt', 'one\n'),
    '2-1': [{ say: 'working' }, { hang: true }],
  });
  await crashWhileAgentRuns(world, 'working');
  return world;
}

function editLikeAUser(w: FaultWorld): void {
  w.write('docs/stable.md', 'stable docs, edited by the user mid-run\n');
  w.write('user-new.txt', 'a file the user created mid-run\n');
}

describe('the user edits files while a run is active', () => {
  it('during an attempt that fails: the edit is saved under the attempt ref, then reverted', async () => {
    world = new FaultWorld(CHANGE, 2).scenario({
      '1-1': [{ say: 'thinking' }, { sleep: 2000 }, { signal: 'FAILED: not yet' }],
      ...ALL_SUCCEED,
    });
    const w = world;
    const live = w.spawn('run');
    await live.waitFor((e) => e.type === 'agent.message' && e.text === 'thinking');
    editLikeAUser(w);
    const exit = await live.exited;
    expect(exit.code, live.stderr).toBe(0);
    expect(w.git('show', `${REF}/1-1:docs/stable.md`)).toBe(
      'stable docs, edited by the user mid-run\n',
    );
    expect(w.git('show', `${REF}/1-1:user-new.txt`)).toBe('a file the user created mid-run\n');
    expect(w.read('docs/stable.md')).toBe('stable docs\n');
    expect(w.exists('user-new.txt')).toBe(false);
    expect(w.status()).toEqual([]);
  });

  it('during an attempt that is accepted: the edit is part of the story’s checkpoint', async () => {
    world = new FaultWorld(CHANGE, 1).scenario({
      '1-1': [
        { say: 'thinking' },
        { sleep: 2000 },
        { write: 'src/one.txt', content: 'one\n' },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    const w = world;
    const live = w.spawn('run');
    await live.waitFor((e) => e.type === 'agent.message' && e.text === 'thinking');
    editLikeAUser(w);
    const exit = await live.exited;
    expect(exit.code, live.stderr).toBe(0);
    expect(w.git('show', `${w.branch}:docs/stable.md`)).toBe(
      'stable docs, edited by the user mid-run\n',
    );
    expect(w.git('show', `${w.branch}:user-new.txt`)).toBe('a file the user created mid-run\n');
    expect(w.attemptRefs()).toEqual([]);
    expect(w.status()).toEqual([]);
  });

  it('while a crashed run waits for resume: resume saves the edit under a ref before carrying on', async () => {
    const w = await crashedDuringStoryTwo();
    editLikeAUser(w);
    w.scenario(ALL_SUCCEED);
    const resumed = await w.loop('resume');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`${REF}/2-1`);
    expect(w.git('show', `${REF}/2-1:user-new.txt`)).toBe('a file the user created mid-run\n');
    expect(w.git('show', `${REF}/2-1:docs/stable.md`)).toBe(
      'stable docs, edited by the user mid-run\n',
    );
    expect(w.subjects(`main..${w.branch}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
    expect(w.status()).toEqual([]);
  });

  it('back on their own branch after a crash: resume says so, leaves its commits, saves the edit', async () => {
    const w = await crashedDuringStoryTwo();
    // The user goes back to work on main: a commit there, and an edit not yet committed.
    w.git('checkout', '-q', '-f', 'main');
    w.write('user-work.txt', 'committed by the user\n');
    w.git('add', 'user-work.txt');
    w.git('commit', '-q', '-m', 'user work');
    const userCommit = w.sha('main');
    w.write('user-work.txt', 'committed by the user, then edited\n');

    w.scenario(ALL_SUCCEED);
    const resumed = await w.loop('resume');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`you were on main, not ${w.branch}`);
    expect(resumed.stderr).toContain(`the commits of main are untouched`);
    expect(resumed.stderr).toContain(`saved as ${REF}/2-1`);
    expect(w.sha('main')).toBe(userCommit);
    expect(w.git('show', `${REF}/2-1:user-work.txt`)).toBe('committed by the user, then edited\n');
    expect(w.subjects(`${w.sha(`${w.branch}~2`)}..${w.branch}`)).toEqual([
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
  });

  it('back on their own branch after a crash: finish --keep says so before keeping the run', async () => {
    const w = await crashedDuringStoryTwo();
    w.git('checkout', '-q', '-f', 'main');
    w.write('user-new.txt', 'the user started something\n');

    const finished = await w.cli(['finish', CHANGE, '--keep']);
    expect(finished.exitCode, finished.stderr).toBe(0);
    expect(finished.stderr).toContain(`you were on main, not ${w.branch}`);
    expect(w.git('show', `${REF}/2-1:user-new.txt`)).toBe('the user started something\n');
    expect(w.currentBranch()).toBe(w.branch);
  });
});
