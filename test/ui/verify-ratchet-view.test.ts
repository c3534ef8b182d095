import { describe, expect, it } from 'vitest';
import { applyEvents, initialLoopView } from '../../src/ui/state/loop-view.js';
import { at, storyTwoDoneStoryThreeRetrying } from './support/fixtures.js';

const TOLERATED = { command: 'npm test', passed: false, tolerated: true };

describe('the UI and the verify ratchet', () => {
  it('notes a tolerated verify failure briefly under the story, after its result', () => {
    const events = [
      ...storyTwoDoneStoryThreeRetrying(),
      at(70, {
        type: 'attempt.failed',
        storyId: '3',
        attempt: 2,
        kind: 'verify-failed',
        reason: '`npm run lint` exited with code 1',
        verify: [TOLERATED, { command: 'npm run lint', passed: false }],
      }),
      at(80, {
        type: 'story.completed',
        storyId: '3',
        attempts: 3,
        costUsd: 0.1,
        durationMs: 1000,
        verify: [TOLERATED, { command: 'npm run lint', passed: true }],
      }),
    ];
    const view = applyEvents(initialLoopView('add-auth'), events, 2000);
    const lines = (view.details['3']?.transcript.lines ?? []).map((l) => `${l.kind}:${l.text}`);
    const note = 'note:npm test still fails as before the run: not blocking';
    expect(lines.slice(-4)).toEqual([
      'failure:attempt 2 failed (verify-failed): `npm run lint` exited with code 1',
      note,
      'note:✓ story done after 3 attempts',
      note,
    ]);
    expect(lines.filter((l) => l.includes('npm run lint') && l.startsWith('note:'))).toEqual([]);
  });
});
