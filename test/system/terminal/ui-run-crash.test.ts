import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../support/cli.js';
import { fakeAgentFlags } from '../../support/fake-agent.js';
import { makeChangeRepo, type TempRepo } from '../../support/temp-repo.js';
import { TmuxSession, tmuxAvailable } from '../../support/tmux.js';

const CHANGE = 'add-greeting';

/**
 * A run started from the UI that fails with an error ralphtool did not foresee (not a
 * user error) must end on the UI's screen, not take the whole process down with it.
 */
describe.skipIf(!tmuxAvailable())('an unexpected error in a run started from the UI', () => {
  let repo: TempRepo | undefined;
  let session: TmuxSession | undefined;

  afterEach(() => {
    session?.kill();
    repo?.remove();
  });

  it('is shown on the screen and the UI stays until the user leaves', async () => {
    repo = makeChangeRepo(CHANGE, [{ title: 'Greeting', tasks: ['Write hello'] }]);
    // ralphtool keeps its records in the folder .git/ralphtool; a file there makes making
    // the run's folder fail with a file-system error (said by session.ts with the folder).
    writeFileSync(path.join(repo.dir, '.git', 'ralphtool'), 'not a folder\n');
    session = TmuxSession.start(
      `ralphtool-crash-${process.pid}`,
      [process.execPath, CLI_PATH, ...fakeAgentFlags()],
      { cwd: repo.dir, env: { NO_COLOR: '1' } },
    );
    const s = session;
    await s.waitFor(/› add-greeting/);
    s.keys('Enter');
    await s.waitFor(/Story 1: Greeting/);
    s.keys('r');
    const screen = await s.waitFor(/The run ended \(exit 1\)/);
    expect(screen).toMatch(/error: cannot create ralphtool's folder \S+\s+ENOTDIR/);
    expect(s.exitStatus()).toBeNull();
    // Still answering keys: back to the changes, then quit with the run's code.
    s.keys('Escape');
    await s.waitFor(/Enter open · q quit/);
    s.keys('q');
    expect(await s.waitForExit()).toBe(1);
  });
});
