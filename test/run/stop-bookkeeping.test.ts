import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/events.js';
import { refWriterPids } from '../../src/git/ref-writer.js';
import { LoopHarness } from '../support/loop-harness.js';
import { loopTypes, ofType, single, stories, succeed } from './helpers.js';

const CHANGE = 'stop-me';
const BRANCH = `ralph/${CHANGE}`;
const REF = `refs/ralphtool/${CHANGE}/attempts`;

/** Story 1 is accepted; story 2 writes a file, says so, then works until it is stopped. */
function hangingHarness(): LoopHarness {
  return new LoopHarness(CHANGE, stories(2)).scenario({
    '1-1': succeed('src/one.txt', 'one\n'),
    '2-*': [
      { write: 'src/partial.txt', content: 'half-way\n' },
      { say: 'working on story 2' },
      { hang: true },
    ],
  });
}

/** The user stops once story 2's agent is at work (Ctrl-C, SIGTERM and `q` all do this). */
const stopInStory2 = (event: RunEvent): boolean =>
  event.type === 'agent.message' && event.text === 'working on story 2';

/** The pids in `after` that `before` did not have. */
const newPids = (before: Set<number>, after: Set<number>): number[] =>
  [...after].filter((pid) => !before.has(pid));

let fixture: LoopHarness | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

// What a stop does to git and to the record; that Ctrl-C and SIGTERM reach the loop as a stop
// and kill the agent's process group is stop.test.ts's (the spawned CLI).
describe('the loop: stopped by the user', () => {
  it('reverts the stopped attempt without judging or counting it, then asks and cleans up (exit 130)', async () => {
    fixture = hangingHarness();
    const f = fixture;
    const result = await f.run({ completion: 'cleanup', stopWhen: stopInStory2 });
    expect(result.exitCode).toBe(130);
    expect(result.asked).toEqual(['stopped']);
    const events = result.events();
    expect(loopTypes(events)).toEqual([
      'run.started',
      'story.started',
      'checkpoint.created',
      'story.completed',
      'story.started',
      'checkpoint.reverted',
      'run.awaiting-choice',
      'run.finished',
    ]);
    // A stop is not a failure: no attempt.failed, and the attempt does not count.
    expect(ofType(events, 'attempt.failed')).toEqual([]);
    expect(single(events, 'checkpoint.reverted')).toMatchObject({
      storyId: '2',
      attempt: 1,
      savedRef: `${REF}/2-1`,
    });
    expect(single(events, 'run.awaiting-choice')).toMatchObject({ outcome: 'stopped' });
    expect(single(events, 'run.finished')).toMatchObject({
      outcome: 'stopped',
      choice: 'cleanup',
      storiesCompleted: 1,
      storiesTotal: 2,
    });

    expect(f.currentBranch()).toBe('main');
    expect(f.branchExists(BRANCH)).toBe(false);
    expect(f.exists('src/partial.txt')).toBe(false);
    expect(f.read('src/one.txt')).toBe('one\n');
    expect(f.status().sort()).toEqual(
      [` M openspec/changes/${CHANGE}/tasks.md`, '?? src/one.txt'].sort(),
    );
    const state = f.state();
    expect(state).toMatchObject({ status: 'finished', outcome: 'stopped', choice: 'cleanup' });
    expect(state.stories).toMatchObject({
      '1': { attempts: 1, completed: true },
      '2': { attempts: 0, completed: false, lastFailure: null },
    });
  });

  it('with keep, stays on the branch at the last checkpoint, the partial work saved under its ref', async () => {
    fixture = hangingHarness();
    const f = fixture;
    const writersBefore = refWriterPids();
    const result = await f.run({ completion: 'keep', stopWhen: stopInStory2 });
    expect(result.exitCode).toBe(130);
    expect(single(result.events(), 'run.finished')).toMatchObject({
      outcome: 'stopped',
      choice: 'keep',
    });
    expect(f.currentBranch()).toBe(BRANCH);
    expect(f.subjects(`main..${BRANCH}`)).toEqual(['initial state', 'checkpoint: 1']);
    expect(f.status()).toEqual([]);
    expect(f.exists('src/partial.txt')).toBe(false);
    expect(f.git('show', `${REF}/2-1:src/partial.txt`)).toBe('half-way\n');
    expect(f.state()).toMatchObject({ status: 'active', outcome: 'stopped', choice: 'keep' });
    // The run is not finished, its loop is: the git its refs went through is not kept open
    // (other tests of this process may have left theirs).
    expect(newPids(writersBefore, refWriterPids())).toEqual([]);
  });

  it('left unanswered, keeps the run recorded at its last checkpoint for finish or resume (exit 130)', async () => {
    fixture = hangingHarness();
    const f = fixture;
    const writersBefore = refWriterPids();
    const result = await f.run({ completion: 'unanswered', stopWhen: stopInStory2 });
    expect(result.exitCode).toBe(130);
    expect(result.asked).toEqual(['stopped']);
    expect(single(result.events(), 'run.finished')).toMatchObject({
      outcome: 'stopped',
      choice: null,
    });
    expect(f.currentBranch()).toBe(BRANCH);
    expect(f.subjects(`main..${BRANCH}`)).toEqual(['initial state', 'checkpoint: 1']);
    expect(f.status()).toEqual([]);
    expect(f.state()).toMatchObject({
      status: 'active',
      outcome: 'stopped',
      choice: null,
      pid: null,
      currentStory: null,
    });
    expect(newPids(writersBefore, refWriterPids())).toEqual([]);
  });

  it('a stop during an attempt that would fail still reports no failure and leaves the retries alone', async () => {
    fixture = new LoopHarness(CHANGE, stories(1)).scenario({
      '1-1': [
        { write: 'src/wip.txt', content: 'wip\n' },
        { say: 'about to give up' },
        { signal: 'FAILED: would have failed' },
      ],
    });
    const f = fixture;
    const result = await f.run({
      maxRetries: 0,
      completion: 'keep',
      stopWhen: (e) => e.type === 'agent.message' && e.text === 'about to give up',
    });
    // Stopped, not exhausted: the one attempt allowed was not used up.
    expect(result.exitCode).toBe(130);
    expect(result.outcome).toBe('stopped');
    const events = result.events();
    expect(ofType(events, 'attempt.failed')).toEqual([]);
    expect(ofType(events, 'story.exhausted')).toEqual([]);
    expect(f.exists('src/wip.txt')).toBe(false);
    expect(f.state().stories).toMatchObject({ '1': { attempts: 0, lastFailure: null } });
  });
});
