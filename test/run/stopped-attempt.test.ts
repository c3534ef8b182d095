import { afterEach, describe, expect, it } from 'vitest';
import { killGroup } from '../support/processes.js';
import { eventually, RunFixture, stories } from './helpers.js';

// What a stopped attempt leaves in state.json, through the real CLI: the stop is no failure of
// the attempt (kind `stopped`, never `crash`), so it neither counts nor replaces the failure
// the next prompt is told about.

const CHANGE = 'stop-records';

let fixture: RunFixture | undefined;
let strayGroup: number | null = null;
afterEach(() => {
  // Only if ralphtool failed to stop its agent: end that group, by its id.
  killGroup(strayGroup);
  strayGroup = null;
  fixture?.remove();
  fixture = undefined;
});

describe('an attempt stopped by the user', () => {
  it('is saved and reverted without counting, keeping the failure before it (exit 130)', async () => {
    fixture = new RunFixture(CHANGE, stories(2)).scenario({
      '1-1': [{ say: 'giving up' }, { signal: 'FAILED: the API is down' }],
      '1-2': [
        { write: 'src/partial.txt', content: 'half-way\n' },
        { say: 'working on attempt 2' },
        { hang: true },
      ],
    });
    const f = fixture;
    const live = f.spawn(['--json', '--on-complete', 'keep']);
    await live.waitFor((e) => e.type === 'agent.message' && e.text === 'working on attempt 2');
    expect(await eventually(() => typeof f.state().agentPgid === 'number')).toBe(true);
    strayGroup = f.state().agentPgid as number;

    live.signal('SIGINT');
    expect((await live.exited).code).toBe(130);

    const failed = live.events.filter((e) => e.type === 'attempt.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ attempt: 1, kind: 'failed-signal' });
    const reverted = live.events.filter((e) => e.type === 'checkpoint.reverted');
    expect(reverted.map((e) => e.attempt)).toEqual([1, 2]);
    expect(f.git('show', `refs/ralphtool/${CHANGE}/attempts/1-2:src/partial.txt`)).toBe(
      'half-way\n',
    );

    const state = f.state();
    expect(state).toMatchObject({
      status: 'finished',
      outcome: 'stopped',
      choice: 'keep',
      currentStory: null,
      currentAttempt: null,
      agentPgid: null,
    });
    expect((state.stories as Record<string, unknown>)['1']).toMatchObject({
      attempts: 1,
      completed: false,
      lastFailure: { kind: 'failed-signal', reason: 'the API is down' },
    });
  });
});
