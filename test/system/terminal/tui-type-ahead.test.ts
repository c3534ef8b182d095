import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../support/cli.js';
import { makeChangeRepo, tasksMarkdown, type TempRepo } from '../../support/temp-repo.js';
import { TmuxSession, tmuxAvailable } from '../../support/tmux.js';

/**
 * A person who knows the way types ahead: `ralphtool`, then ↓ Enter Tab at once, before the
 * UI is even drawn. Those keys reach the program before Ink switches the terminal to raw
 * mode (Enter arrives as a line feed, the plain keys in one run) and before the change list
 * is read; none of them may be lost.
 */
describe.skipIf(!tmuxAvailable())('keys typed before the UI is ready', () => {
  let repo: TempRepo | undefined;
  let session: TmuxSession | undefined;

  afterEach(() => {
    session?.kill();
    repo?.remove();
  });

  it('open the change chosen, on the tab chosen', async () => {
    repo = makeChangeRepo('add-greeting', [{ title: 'Greeting', tasks: ['Write hello'] }], {
      'openspec/changes/fix-logout/tasks.md': tasksMarkdown([
        { title: 'Logout', tasks: ['Clear the session'] },
      ]),
      'openspec/changes/fix-logout/specs/auth/spec.md':
        '## ADDED Requirements\n\n### Requirement: Logout\n\nThe user SHALL be able to log out.\n\n#### Scenario: Session cleared\n- **WHEN** the user logs out\n- **THEN** the session is gone\n',
    });
    session = TmuxSession.start(`ralphtool-ahead-${process.pid}`, [process.execPath, CLI_PATH], {
      cwd: repo.dir,
      env: { NO_COLOR: '1' },
      width: 100,
      height: 30,
    });
    session.keys('Down', 'Enter', 'Tab');

    const screen = await session.waitFor(/Scenario: Session cleared/);
    expect(screen).toContain('ralphtool › fix-logout');
    expect(screen).toMatch(/\[ Scenarios \]/);
    session.keys('q');
    expect(await session.waitForExit()).toBe(0);
  });
});
