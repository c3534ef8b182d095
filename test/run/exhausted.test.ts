import { afterEach, describe, expect, it } from 'vitest';
import { LoopHarness } from '../support/loop-harness.js';
import { loopTypes, ofType, single, stories, succeed } from './helpers.js';

const CHANGE = 'hard-story';

/** Story 1 succeeds, story 2 always gives up, story 3 must never be tried. */
const EXHAUSTING = {
  '1-1': succeed('src/one.txt', 'one\n'),
  '2-*': [{ write: 'src/two.txt', content: 'never good\n' }, { signal: 'FAILED: cannot do it' }],
  '3-*': succeed('src/three.txt', 'three\n'),
};

function exhaustingHarness(): LoopHarness {
  return new LoopHarness(CHANGE, stories(3)).scenario(EXHAUSTING);
}

let fixture: LoopHarness | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe('the loop: a story that uses up its retries', () => {
  it('reports it, still applies the completion choice (keep) and exits 3', async () => {
    fixture = exhaustingHarness();
    const f = fixture;
    const result = await f.run({ maxRetries: 1, completion: 'keep' });
    expect(result.exitCode).toBe(3);
    const events = result.events();

    expect(loopTypes(events)).toEqual([
      'run.started',
      'story.started',
      'checkpoint.created',
      'story.completed',
      'story.started',
      'attempt.failed',
      'checkpoint.reverted',
      'story.started',
      'attempt.failed',
      'checkpoint.reverted',
      'story.exhausted',
      'error',
      'run.awaiting-choice',
      'run.finished',
    ]);
    expect(ofType(events, 'story.started').map((e) => [e.storyId, e.attempt])).toEqual([
      ['1', 1],
      ['2', 1],
      ['2', 2],
    ]);
    const exhausted = single(events, 'story.exhausted');
    expect(exhausted).toMatchObject({ storyId: '2', attempts: 2 });
    expect(exhausted.reason).toContain('cannot do it');
    const error = single(events, 'error');
    expect(typeof error.fatal).toBe('boolean');
    expect(error.message).toContain('2');
    expect(error.message).toContain('cannot do it');
    expect(single(events, 'run.awaiting-choice')).toMatchObject({
      outcome: 'max-retries',
      options: ['cleanup', 'keep'],
    });
    expect(single(events, 'run.finished')).toMatchObject({
      outcome: 'max-retries',
      choice: 'keep',
      storiesCompleted: 1,
      storiesTotal: 3,
    });

    expect(f.invoked('2', 3)).toBe(false);
    expect(f.invoked('3', 1)).toBe(false);
    expect(f.currentBranch()).toBe(`ralph/${CHANGE}`);
    expect(f.subjects(`main..ralph/${CHANGE}`)).toEqual(['initial state', 'checkpoint: 1']);
    expect(f.status()).toEqual([]);
    expect(f.read('src/one.txt')).toBe('one\n');
    expect(f.exists('src/two.txt')).toBe(false);
    expect(f.attemptRefs()).toEqual([
      `refs/ralphtool/${CHANGE}/attempts/2-1`,
      `refs/ralphtool/${CHANGE}/attempts/2-2`,
    ]);
    expect(f.state()).toMatchObject({ status: 'active', outcome: 'max-retries', choice: 'keep' });
  });

  it('applies cleanup too: back on main with the accepted work uncommitted', async () => {
    fixture = exhaustingHarness();
    const f = fixture;
    const mainBefore = f.git('rev-parse', 'main').trim();
    const result = await f.run({ maxRetries: 1, completion: 'cleanup' });
    expect(result.exitCode).toBe(3);
    expect(single(result.events(), 'run.finished')).toMatchObject({
      outcome: 'max-retries',
      choice: 'cleanup',
      storiesCompleted: 1,
      storiesTotal: 3,
    });

    expect(f.invoked('3', 1)).toBe(false);
    expect(f.currentBranch()).toBe('main');
    expect(f.git('rev-parse', 'main').trim()).toBe(mainBefore);
    expect(f.branchExists(`ralph/${CHANGE}`)).toBe(false);
    expect(f.status().sort()).toEqual(
      [` M openspec/changes/${CHANGE}/tasks.md`, '?? src/one.txt'].sort(),
    );
    expect(f.exists('src/two.txt')).toBe(false);
    expect(f.state()).toMatchObject({
      status: 'finished',
      outcome: 'max-retries',
      choice: 'cleanup',
    });
  });
});
