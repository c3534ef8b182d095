import { describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { reviewIntentGiven, reviewOptions } from '../../src/cli/review-flags.js';

describe('the review flags', () => {
  it.each([
    [{}, { review: null, reviewCommand: null, maxReviewRounds: 2 }],
    [{ review: true }, { review: 'agent', reviewCommand: null, maxReviewRounds: 2 }],
    [{ reviewAgent: 'codex' }, { review: 'codex', reviewCommand: null, maxReviewRounds: 2 }],
    [
      { reviewCommand: './review.sh --strict', maxReviewRounds: '3' },
      { review: 'command', reviewCommand: './review.sh --strict', maxReviewRounds: 3 },
    ],
    [
      { review: true, maxReviewRounds: '0' },
      { review: 'agent', reviewCommand: null, maxReviewRounds: 0 },
    ],
  ])('%j', (flags, options) => {
    expect(reviewOptions(flags)).toEqual(options);
  });

  it.each([
    [{ reviewAgent: 'command' }, '--review-agent'],
    [{ reviewAgent: 'nope' }, '--review-agent'],
    [{ reviewCommand: '  ' }, '--review-command'],
    [{ reviewAgent: 'claude', reviewCommand: 'x' }, 'give one'],
    [{ review: true, maxReviewRounds: '-1' }, '--max-review-rounds'],
  ])('refuses %j in one line', (flags, says) => {
    expect(() => reviewOptions(flags)).toThrow(UsageError);
    expect(() => reviewOptions(flags)).toThrow(says);
  });

  it('a reviewer named now replaces the recorded one whole (agent and command)', () => {
    const given = (flags: Parameters<typeof reviewIntentGiven>[0]): string[] =>
      reviewIntentGiven(flags)
        .filter(([, yes]) => yes)
        .map(([key]) => key);
    expect(given({})).toEqual([]);
    expect(given({ review: true })).toEqual(['review', 'reviewCommand']);
    expect(given({ reviewCommand: 'x' })).toEqual(['review', 'reviewCommand']);
    expect(given({ maxReviewRounds: '1' })).toEqual(['maxReviewRounds']);
  });
});
