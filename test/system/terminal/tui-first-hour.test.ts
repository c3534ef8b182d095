import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeAgentFlags } from '../../support/fake-agent.js';
import { CLI_PATH } from '../../support/cli.js';
import {
  makeChangeRepo,
  makeTempRepo,
  tasksMarkdown,
  type TempRepo,
} from '../../support/temp-repo.js';
import { TmuxSession, tmuxAvailable } from '../../support/tmux.js';

const CHANGE = 'add-greeting';

/** The option the completion screen has selected (its row starts with `› `). */
function selected(screen: string): string | undefined {
  return /› (Cleanup|Keep)/.exec(screen)?.[1];
}

/** Small things a user meets in the first hour, in a real terminal. */
describe.skipIf(!tmuxAvailable())('ralphtool UI under tmux: first-hour details', () => {
  let repo: TempRepo | undefined;
  let session: TmuxSession | undefined;

  afterEach(() => {
    session?.kill();
    repo?.remove();
  });

  it('moves the completion choice with the arrows without wrapping, and names the keys', async () => {
    repo = makeChangeRepo(CHANGE, [{ title: 'Greeting', tasks: ['Write hello'] }]);
    const scenario = path.join(repo.dir, '.git', 'scenario.json');
    writeFileSync(
      scenario,
      JSON.stringify({
        '*': [{ write: 'hello.txt', content: 'hello\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
      }),
    );
    session = TmuxSession.start(
      `ralphtool-first-hour-${process.pid}`,
      [process.execPath, CLI_PATH, ...fakeAgentFlags()],
      { cwd: repo.dir, env: { FAKE_AGENT_SCENARIO: scenario, NO_COLOR: '1' } },
    );
    await session.waitFor(/› add-greeting/);
    session.keys('Enter');
    await session.waitFor(/Story 1: Greeting/);
    session.keys('r');
    const completion = await session.waitFor(/› Cleanup/);
    expect(completion).toContain('←/↑ Cleanup · →/↓ Keep · Enter apply');

    // ← and ↑ on the first option stay on it.
    session.keys('Left');
    session.keys('Up');
    session.keys('Right');
    await session.waitFor((s) => selected(s) === 'Keep');
    // → and ↓ on the last option stay on it.
    session.keys('Right');
    session.keys('Down');
    session.keys('Left');
    await session.waitFor((s) => selected(s) === 'Cleanup');
    session.keys('Left');
    session.keys('Enter');
    await session.waitFor(/Changed files against main/);
    session.keys('q');
    expect(await session.waitForExit()).toBe(0);
    // Cleanup was applied: back on main, the work uncommitted.
    expect(repo.git('branch', '--show-current').trim()).toBe('main');
    expect(repo.git('status', '--porcelain')).toContain('?? hello.txt');
  });

  it('says how many changes lie below the window of the changes list', async () => {
    const files: Record<string, string> = {};
    for (let i = 0; i < 30; i += 1) {
      files[`openspec/changes/change-${String(i).padStart(2, '0')}/tasks.md`] = tasksMarkdown([
        { title: 'Only', tasks: ['do it'] },
      ]);
    }
    repo = makeTempRepo(files);
    session = TmuxSession.start(
      `ralphtool-first-hour-list-${process.pid}`,
      [process.execPath, CLI_PATH],
      { cwd: repo.dir, env: { NO_COLOR: '1' }, width: 80, height: 20 },
    );
    // 20 rows: one kept free, 2 header rows and the footer leave 16 for the 30 changes.
    const first = await session.waitFor(/› change-00/);
    expect(first).toContain('↓ 14 more below');
    for (let i = 0; i < 29; i += 1) session.keys('Down');
    const last = await session.waitFor(/› change-29/);
    expect(last).toContain('↑ 14 more above');
    expect(last).not.toContain('below');
    session.keys('q');
    expect(await session.waitForExit()).toBe(0);
  });
});
