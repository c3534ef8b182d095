import { afterEach, describe, expect, it } from 'vitest';
import { ofType, RunFixture, single, stories, succeed } from '../../run/helpers.js';

const CHANGE = 'hard-story';

/** Story 1 succeeds, story 2 always gives up, story 3 must never be tried. */
const EXHAUSTING = {
  '1-1': succeed('src/one.txt', 'one\n'),
  '2-*': [{ write: 'src/two.txt', content: 'never good\n' }, { signal: 'FAILED: cannot do it' }],
  '3-*': succeed('src/three.txt', 'three\n'),
};

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe('ralphtool run --max-retries', () => {
  it('with --max-retries 0 gives a story exactly one attempt; without a TTY the choice is keep', async () => {
    fixture = new RunFixture(CHANGE, stories(3)).scenario(EXHAUSTING);
    const f = fixture;
    const result = await f.run(['--json', '--max-retries', '0']);
    expect(result.exitCode).toBe(3);
    expect(ofType(result.events(), 'story.started').map((e) => [e.storyId, e.attempt])).toEqual([
      ['1', 1],
      ['2', 1],
    ]);
    expect(single(result.events(), 'story.exhausted')).toMatchObject({
      storyId: '2',
      attempts: 1,
    });
    // No --on-complete and stdin is not a terminal: keep.
    expect(single(result.events(), 'run.finished')).toMatchObject({ choice: 'keep' });
    expect(fixture.currentBranch()).toBe(`ralph/${CHANGE}`);
  });
});
