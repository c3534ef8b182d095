import { afterEach, describe, expect, it } from 'vitest';
import { quote, RunFixture, single, stories } from '../../run/helpers.js';

const CHANGE = 'verified-change';
const NODE = quote(process.execPath);

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe('ralphtool run --verify', () => {
  // These commands fail before the run too: --verify-strict makes them block from the start
  // (without it they would be tolerated until they first pass: verify-ratchet.test.ts).
  it('fails a COMPLETE whose verify command exits non-zero, naming the command and exit code', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario({
      '1-1': [{ tick: 'all' }, { signal: 'COMPLETE' }],
    });
    const passing = `${NODE} -e "process.exit(0)"`;
    const failing = `${NODE} -e "console.log('lint: 2 problems'); process.exit(3)"`;
    const result = await fixture.run([
      '--json',
      '--max-retries',
      '0',
      '--verify-strict',
      '--verify',
      passing,
      '--verify',
      failing,
    ]);
    expect(result.exitCode).toBe(3);
    const failure = single(result.events(), 'attempt.failed');
    expect(failure).toMatchObject({ storyId: '1', attempt: 1, kind: 'verify-failed' });
    const reason = String(failure.reason);
    expect(reason).toContain(failing);
    expect(reason).toContain('3');
    expect(reason).toMatch(/code 3\b/);
    expect(reason).toContain('lint: 2 problems');
    expect(reason).not.toContain(passing);
    // The verify commands are named in the prompt as the ones ralphtool will run.
    expect(fixture.prompt('1', 1)).toContain(failing);
    expect(fixture.status()).toEqual([]);
  });
});
