import { describe, expect, it } from 'vitest';
import { exitCodeFor, nextStep, type LoopPosition } from '../../src/core/loop.js';

function view(overrides: Partial<LoopPosition>): LoopPosition {
  return {
    stories: [
      { id: '1', done: true },
      { id: '2', done: false },
      { id: '3', done: false },
    ],
    attempts: {},
    maxRetries: 3,
    stopRequested: false,
    fatalError: null,
    ...overrides,
  };
}

describe('nextStep', () => {
  it('works on the first incomplete story, counting attempts from 1', () => {
    expect(nextStep(view({}))).toEqual({ kind: 'attempt', storyId: '2', attempt: 1 });
    expect(nextStep(view({ attempts: { '2': 2 } }))).toEqual({
      kind: 'attempt',
      storyId: '2',
      attempt: 3,
    });
  });

  it('allows maxRetries + 1 attempts, then exhausts the story', () => {
    expect(nextStep(view({ attempts: { '2': 3 } }))).toMatchObject({ attempt: 4 });
    expect(nextStep(view({ attempts: { '2': 4 } }))).toEqual({
      kind: 'finish',
      outcome: 'max-retries',
      exhaustedStoryId: '2',
    });
    expect(nextStep(view({ maxRetries: 0, attempts: { '2': 1 } }))).toMatchObject({
      outcome: 'max-retries',
    });
  });

  it('finishes complete when every story is done', () => {
    expect(nextStep(view({ stories: [{ id: '1', done: true }] }))).toEqual({
      kind: 'finish',
      outcome: 'complete',
      exhaustedStoryId: null,
    });
  });

  it('lets a stop and a fatal error win over remaining work', () => {
    expect(nextStep(view({ stopRequested: true }))).toMatchObject({ outcome: 'stopped' });
    expect(nextStep(view({ fatalError: 'auth', stopRequested: true }))).toMatchObject({
      outcome: 'error',
    });
  });
});

describe('exitCodeFor', () => {
  it('maps outcomes to the contract exit codes', () => {
    expect(exitCodeFor('complete')).toBe(0);
    expect(exitCodeFor('error')).toBe(1);
    expect(exitCodeFor('max-retries')).toBe(3);
    expect(exitCodeFor('stopped')).toBe(130);
  });
});
