import { afterEach, describe, expect, it } from 'vitest';
import { LoopHarness } from '../support/loop-harness.js';
import { ofType, single, stories } from './helpers.js';

const CHANGE = 'agent-errors';

let fixture: LoopHarness | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe('the loop: errors the agent reports', () => {
  it('fails an attempt whose result has is_error (kind agent-error) and retries it', async () => {
    fixture = new LoopHarness(CHANGE, stories(1)).scenario({
      '1-1': [
        { write: 'src/a.txt', content: 'a\n' },
        { tick: 'all' },
        { signal: 'COMPLETE' },
        { isError: 'API Error: 529 overloaded' },
      ],
      '1-2': [{ tick: 'all' }, { signal: 'COMPLETE' }],
    });
    const f = fixture;
    const result = await f.run({ maxRetries: 1, format: 'claude', completion: 'keep' });
    expect(result.exitCode).toBe(0);
    const events = result.events();
    const failure = single(events, 'attempt.failed');
    expect(failure).toMatchObject({ attempt: 1, kind: 'agent-error' });
    expect(failure.reason).toContain('529 overloaded');
    expect(ofType(events, 'agent.result')[0]).toMatchObject({ attempt: 1, isError: true });
    expect(single(events, 'story.completed')).toMatchObject({ attempts: 2 });
    expect(f.exists('src/a.txt')).toBe(false);
  });
});
