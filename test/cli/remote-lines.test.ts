import { describe, expect, it } from 'vitest';
import { remoteLines } from '../../src/cli/render/remote-lines.js';
import { plainStyle } from '../../src/format/style.js';

const REFSPECS = [
  'refs/heads/ralph/a-change-with-a-rather-long-name:refs/heads/ralph/a-change-with-a-rather-long-name',
  'refs/ralphtool/a-change-with-a-rather-long-name/attempts/*:refs/ralphtool/a-change-with-a-rather-long-name/attempts/*',
  'refs/ralphtool/a-change-with-a-rather-long-name/record:refs/ralphtool/a-change-with-a-rather-long-name/record',
];

function failed(failures: number, retryInMs: number | null): string[] {
  return remoteLines(
    {
      type: 'remote.push-failed',
      remote: 'origin',
      message: 'could not read from remote repository',
      failures,
      retryInMs,
      refspecs: REFSPECS,
    },
    plainStyle,
    160,
  );
}

describe('the progress lines of --push', () => {
  it('says a remote that stays unreachable at the 1st, 2nd, 4th, 8th failure, not every time', () => {
    const shown = [1, 2, 3, 4, 5, 6, 7, 8, 9].filter((n) => failed(n, 1000).length > 0);
    expect(shown).toEqual([1, 2, 4, 8]);
    expect(failed(2, 4000)[0]).toBe(
      '  ⚠ push to origin failed (2 in a row): could not read from remote repository; the run goes on; next try in 4s',
    );
  });

  it('at the end gives the whole push command, never clipped, with globs quoted for the shell', () => {
    const lines = failed(3, null);
    expect(lines).toHaveLength(2);
    expect(lines[1]).toBe(
      `  the remote does not have the run's last steps; this sends them: git push origin ${REFSPECS[0]} '${REFSPECS[1]}' ${REFSPECS[2]}`,
    );
  });

  it('says a catch-up, and nothing for an ordinary push', () => {
    const pushed = { type: 'remote.pushed' as const, remote: 'origin', refs: 3 };
    expect(remoteLines(pushed, plainStyle, 160)).toEqual([]);
    expect(remoteLines({ ...pushed, caughtUpAfter: 4 }, plainStyle, 160)).toEqual([
      '  ⇡ origin has caught up (after 4 failed pushes)',
    ]);
  });
});
