import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../support/cli.js';
import { claudeUsageLimit, claudeUtilisation } from '../../support/fallback-world.js';
import { TmuxSession, tmuxAvailable } from '../../support/tmux.js';
import { succeed } from '../../run/helpers.js';
import { ManyFixture } from '../worktree/many-fixture.js';

/**
 * The usage governor on the dashboard (docs/contract.md, "One account, many runs"), in a real
 * terminal with the real CLI: two changes run together on one Claude account (`claude` a
 * scripted executable printing Claude Code's stream); the window's utilisation one agent
 * reports, the limit the other meets, and who waits until when are on the screen, as `status`
 * says them. Then both finish and are kept.
 */
describe.skipIf(!tmuxAvailable())('the account window on the dashboard under tmux', () => {
  let fixture: ManyFixture | undefined;
  let session: TmuxSession | undefined;

  afterEach(() => {
    session?.kill();
    fixture?.remove();
  });

  it('shows the utilisation, the limit and the run that hit it, and the runs that wait for it', async () => {
    fixture = new ManyFixture({ alpha: 1, beta: 2 });
    const f = fixture;
    const betaAtWork = path.join(f.scratch, 'beta-is-at-work');
    const gate = path.join(f.scratch, 'beta-may-finish-story-1');
    const hourAhead = new Date(Date.now() + 3_600_000);
    f.scenarios({
      alpha: {
        // Alpha meets the account's limit (a reset seconds ahead) while beta's attempt runs.
        '1-1#1': [{ waitFor: betaAtWork }, ...claudeUsageLimit(new Date(Date.now() + 2_000))],
        '1-1': succeed('alpha-1.txt', 'alpha one\n'),
      },
      beta: {
        '1-1': [
          claudeUtilisation(0.83, hourAhead),
          { say: 'beta at work' },
          { waitFor: gate },
          ...succeed('beta-1.txt', 'beta one\n'),
        ],
        '2-1': succeed('beta-2.txt', 'beta two\n'),
      },
    });
    const env = Object.fromEntries(
      Object.entries({ ...f.claudeEnv(), NO_COLOR: '1' }).filter(
        (e): e is [string, string] => e[1] !== undefined,
      ),
    );
    session = TmuxSession.start(
      `ralphtool-account-${process.pid}`,
      [process.execPath, CLI_PATH, '--agent', 'claude', '--parallel', '2'],
      { cwd: f.dir, env, width: 160, height: 32 },
    );
    const s = session;
    await s.waitFor(/› alpha/);
    s.keys('a');
    await s.waitFor(/s start 2 marked/);
    s.keys('s');

    // Beta's agent reported the window's utilisation: the account's row says it.
    const used = await s.waitFor(
      (screen) =>
        screen.includes('beta at work') &&
        /account claude-[0-9a-f]{12}: 83% of the five_hour window used, resets \d\d:\d\d/.test(
          screen,
        ),
      60_000,
    );
    expect(used).not.toContain('limited until');
    writeFileSync(betaAtWork, '');

    // Alpha meets the limit: the account is limited by alpha's run, and alpha waits.
    await s.waitFor(
      (screen) =>
        /83% of the five_hour window used, resets \d\d:\d\d · limited until \d\d:\d\d by the run of alpha \(pid \d+\)/.test(
          screen,
        ) && /waiting for a limit: alpha until \d\d:\d\d/.test(screen),
      60_000,
    );
    // Beta's running attempt goes on; its next one waits with alpha, named beside it.
    writeFileSync(gate, '');
    await s.waitFor(/waiting for a limit: alpha until \d\d:\d\d, beta until \d\d:\d\d/, 60_000);

    // The reset passes: both go on and finish.
    const asked = await s.waitFor(
      (screen) =>
        /alpha\s+complete: choose c\/k/.test(screen) && /beta\s+complete: choose c\/k/.test(screen),
      120_000,
    );
    expect(asked).not.toContain('waiting for a limit:');
    s.keys('K');
    await s.waitFor(/2 runs › result/, 60_000);
    s.keys('q');
    expect(await s.waitForExit(30_000)).toBe(0);
    expect(Object.fromEntries(f.starts())).toEqual({
      'alpha.1-1': 2,
      'beta.1-1': 1,
      'beta.2-1': 1,
    });
  }, 300_000);
});
