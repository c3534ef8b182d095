import { afterEach, describe, expect, it } from 'vitest';
import { runCliInProcess } from '../support/cli-in-process.js';
import { RunFixture, stories } from '../run/helpers.js';

// `worker`'s refusals of bad usage: exit 2, one line, nothing touched.

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe('worker usage', () => {
  const refusals: [string[], RegExp][] = [
    [[], /worker needs --from <remote>/],
    [
      ['--from', 'origin', '--on-complete', 'cleanup'],
      /worker keeps every run .*drop --on-complete cleanup/,
    ],
    [['--from', '-x'], /--from: "-x" is not a git remote/],
    [['--from', 'origin', '--watch', '0'], /--watch: must be greater than 0/],
    [['--from', 'origin', '--watch', 'soon'], /--watch/],
  ];
  for (const [args, said] of refusals) {
    it(`refuses worker ${args.join(' ')}`, async () => {
      fixture = new RunFixture('add-a', stories(1));
      const before = fixture.git('for-each-ref');
      const run = await runCliInProcess(['worker', ...args], { cwd: fixture.dir });
      expect(run.exitCode, run.stderr).toBe(2);
      expect(run.stderr).toMatch(said);
      expect(run.stderr.trim().split('\n')).toHaveLength(1);
      expect(fixture.git('for-each-ref')).toBe(before);
    });
  }
});
