import { afterEach, describe, expect, it } from 'vitest';
import { FaultWorld, succeed } from './support/world.js';

// Row 2, "cleanup": kill -9 at each point of the cleanup sequence (step marker, `checkout
// <original>`, `merge --squash`, `reset`, `branch -D`, then the state update), and the moment
// the loop asks for the completion choice (the kill lands somewhere in the cleanup).

const CHANGE = 'crash-cleanup';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

type Reached = 'marker' | 'checkout' | 'squash' | 'reset' | 'delete';

/** A finished two-story run, turned back into the state a cleanup interrupted after `reached` leaves. */
async function interruptedCleanup(reached: Reached): Promise<FaultWorld> {
  world = new FaultWorld(CHANGE, 2).scenario({
    '1-1': succeed('src/one.txt', 'one\n'),
    '2-1': succeed('src/two.txt', 'two\n'),
  });
  const w = world;
  const run = await w.loop('run');
  expect(run.exitCode, run.stderr).toBe(0);
  const finished = w.state();
  w.writeState({
    ...finished,
    status: 'active',
    choice: null,
    step: { op: 'cleanup' },
    pid: 999_999_999,
  });
  if (reached !== 'marker') w.git('checkout', '-q', 'main', '--');
  if (['squash', 'reset', 'delete'].includes(reached)) {
    w.git('merge', '-q', '--squash', '--ff', '--no-stat', w.branch);
  }
  if (reached === 'reset' || reached === 'delete') w.git('reset', '-q');
  if (reached === 'delete') w.git('branch', '-q', '-D', w.branch);
  return w;
}

function expectCleanedUp(w: FaultWorld, mainBefore: string): void {
  expect(w.currentBranch()).toBe('main');
  expect(w.sha('main')).toBe(mainBefore);
  expect(w.branchExists(w.branch)).toBe(false);
  expect(w.read('src/one.txt')).toBe('one\n');
  expect(w.read('src/two.txt')).toBe('two\n');
  expect(w.status().sort()).toEqual(
    [
      ' M docs/draft.md',
      ` M ${w.tasksPath}`,
      '?? notes/todo.txt',
      '?? src/one.txt',
      '?? src/two.txt',
    ].sort(),
  );
  expect(w.userFilesChanged()).toEqual([]);
  expect(w.state()).toMatchObject({
    status: 'finished',
    choice: 'cleanup',
    outcome: 'complete',
    step: null,
  });
}

const POINTS: Reached[] = ['marker', 'checkout', 'squash', 'reset', 'delete'];

describe('a cleanup interrupted by kill -9', () => {
  it.each(POINTS)('after "%s": finish --cleanup completes it', async (reached) => {
    const w = await interruptedCleanup(reached);
    const mainBefore = w.sha('main');
    const status = await w.statusJson();
    expect(status.runs[0]).toMatchObject({ state: 'interrupted' });
    const result = await w.cli(['finish', CHANGE, '--cleanup']);
    expect(result.exitCode, result.stderr).toBe(0);
    expectCleanedUp(w, mainBefore);
  });

  it.each(POINTS)(
    'after "%s": resume refuses (exit 2), naming finish --cleanup, and changes nothing',
    async (reached) => {
      const w = await interruptedCleanup(reached);
      const head = w.git('rev-parse', 'HEAD');
      const statusBefore = w.status();
      const result = await w.loop('resume');
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(`ralphtool finish ${CHANGE} --cleanup`);
      expect(w.git('rev-parse', 'HEAD')).toBe(head);
      expect(w.status()).toEqual(statusBefore);
      expect(w.state()).toMatchObject({ status: 'active', step: { op: 'cleanup' } });
    },
  );
});

describe('kill -9 when the loop reaches the completion choice (cleanup)', () => {
  it('finish --cleanup (or the cleanup itself, if it got that far) leaves main with the work uncommitted', async () => {
    world = new FaultWorld(CHANGE, 2).scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
      '2-1': succeed('src/two.txt', 'two\n'),
    });
    const w = world;
    const mainBefore = w.sha('main');
    const live = w.spawn('run', [], { onComplete: 'cleanup' });
    await live.waitFor((e) => e.type === 'run.awaiting-choice');
    await live.kill9();
    const result = await w.cli(['finish', CHANGE, '--cleanup']);
    if (result.exitCode === 2) {
      // The kill came after the cleanup had finished: the run says so, and nothing is left to do.
      expect(result.stderr).toContain('already finished');
    } else {
      expect(result.exitCode, result.stderr).toBe(0);
    }
    expectCleanedUp(w, mainBefore);
  });
});
