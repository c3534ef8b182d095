import { describe, expect, it } from 'vitest';
import { RUN_OUTCOMES, type RunOutcome } from '../../src/core/events.js';
import { chooseAll, chooseWork, type ChangeFacts } from '../../src/core/work-left.js';

// Which changes have work left on a remote (core/work-left.ts): what `worker` takes up.

function facts(over: Partial<ChangeFacts> = {}): ChangeFacts {
  return {
    change: 'add-a',
    stories: { done: 0, total: 2 },
    record: null,
    claim: null,
    localCopyCurrent: false,
    triedHere: false,
    ...over,
  };
}

const RESUMABLE: readonly (RunOutcome | null)[] = [null, 'stopped', 'limited', 'time-limit'];
const FOR_A_PERSON: readonly RunOutcome[] = ['max-retries', 'blocked', 'error', 'budget'];

describe('chooseWork', () => {
  it('starts a change with stories left and no run recorded', () => {
    expect(chooseWork(facts(), 'origin')).toMatchObject({ action: 'run' });
  });

  it('leaves a change whose stories are all ticked, or that has none, or is not on the branch', () => {
    expect(chooseWork(facts({ stories: { done: 2, total: 2 } }), 'origin')).toMatchObject({
      action: 'skip',
      skip: 'complete',
    });
    expect(chooseWork(facts({ stories: { done: 0, total: 0 } }), 'origin')).toMatchObject({
      skip: 'no-stories',
    });
    expect(chooseWork(facts({ stories: null }), 'origin')).toMatchObject({ skip: 'no-stories' });
  });

  it('every outcome of an unfinished run is either resumed or left for a person, never started again', () => {
    for (const outcome of [null, ...RUN_OUTCOMES]) {
      const choice = chooseWork(facts({ record: { status: 'active', outcome } }), 'origin');
      if (RESUMABLE.includes(outcome)) {
        expect(choice, String(outcome)).toMatchObject({ action: 'resume-from' });
      } else if ((FOR_A_PERSON as readonly (RunOutcome | null)[]).includes(outcome)) {
        expect(choice, String(outcome)).toMatchObject({ action: 'skip', skip: 'needs-person' });
        expect(choice.why).toContain('`ralphtool resume add-a --from origin');
      } else {
        // complete: a kept run with every story done is finished; an active one goes on.
        expect(choice.action, String(outcome)).toBe('resume-from');
      }
    }
  });

  it('a blocked run is left with the answer to give', () => {
    const choice = chooseWork(facts({ record: { status: 'active', outcome: 'blocked' } }), 'o');
    expect(choice.why).toContain('`ralphtool resume add-a --from o --answer "…"`');
  });

  it('resumes without --from a run this machine has as far as the remote', () => {
    const record = { status: 'active' as const, outcome: 'limited' as const };
    expect(chooseWork(facts({ record, localCopyCurrent: true }), 'o')).toMatchObject({
      action: 'resume',
    });
  });

  it('leaves finished runs, unreadable records, live claims and what this worker took already', () => {
    const cases: [Partial<ChangeFacts>, string][] = [
      [{ record: { status: 'finished', outcome: 'complete' } }, 'finished'],
      [{ record: 'unreadable' }, 'unreadable'],
      [{ claim: { takeable: false, holder: 'h (pid 1)' } }, 'claimed'],
      [
        { record: { status: 'active', outcome: null }, claim: { takeable: false, holder: 'h' } },
        'claimed',
      ],
      [{ triedHere: true }, 'tried'],
    ];
    for (const [over, skip] of cases) {
      expect(chooseWork(facts(over), 'o'), skip).toMatchObject({ action: 'skip', skip });
    }
  });

  it('takes over a claim that may be taken over', () => {
    const record = { status: 'active' as const, outcome: null };
    const claim = { takeable: true, holder: 'gone (pid 9)' };
    expect(chooseWork(facts({ record, claim }), 'o')).toMatchObject({ action: 'resume-from' });
  });
});

describe('chooseAll', () => {
  it('puts unfinished runs first, then new ones, then the skipped, each by name', () => {
    const order = chooseAll(
      [
        facts({ change: 'zeta' }),
        facts({ change: 'done', stories: { done: 1, total: 1 } }),
        facts({ change: 'beta', record: { status: 'active', outcome: 'stopped' } }),
        facts({ change: 'alpha' }),
      ],
      'o',
    ).map((c) => `${c.change}:${c.action}`);
    expect(order).toEqual(['beta:resume-from', 'alpha:run', 'zeta:run', 'done:skip']);
  });
});
