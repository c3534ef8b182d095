import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH, runCli } from '../../support/cli.js';
import { fakeAgentFlags } from '../../support/fake-agent.js';
import { makeChangeRepo, type TempRepo } from '../../support/temp-repo.js';
import { TmuxSession, tmuxAvailable } from '../../support/tmux.js';

const CHANGE = 'add-greeting';

/** Leaving the UI: at once during a run (q three times), or normally after a stopped run. */
describe.skipIf(!tmuxAvailable())('quitting the UI', () => {
  let repo: TempRepo | undefined;
  let session: TmuxSession | undefined;

  afterEach(() => {
    session?.kill();
    repo?.remove();
  });

  function start(name: string): TmuxSession {
    repo = makeChangeRepo(CHANGE, [{ title: 'Greeting', tasks: ['Write hello'] }]);
    const scenario = path.join(repo.dir, '.git', 'scenario.json');
    writeFileSync(
      scenario,
      JSON.stringify({
        '*': [{ write: 'hello.txt', content: 'half' }, { say: 'thinking hard' }, { hang: true }],
      }),
    );
    session = TmuxSession.start(
      `ralphtool-${name}-${process.pid}`,
      [process.execPath, CLI_PATH, ...fakeAgentFlags()],
      { cwd: repo.dir, env: { FAKE_AGENT_SCENARIO: scenario, NO_COLOR: '1' } },
    );
    return session;
  }

  async function runUntilThinking(s: TmuxSession): Promise<void> {
    await s.waitFor(/› add-greeting/);
    s.keys('Enter');
    await s.waitFor(/Story 1: Greeting/);
    s.keys('r');
    await s.waitFor(/attempt 1 of/);
    s.keys('Tab');
    await s.waitFor(/thinking hard/);
  }

  it('q three times during an attempt quits at once (130), saying how to recover', async () => {
    const s = start('quit-now');
    await runUntilThinking(s);
    s.keys('q', 'q', 'q');
    expect(await s.waitForExit()).toBe(130);
    expect(await s.waitForText('quit at once; any run in progress is left on disk')).toContain(
      'quit at once; any run in progress is left on disk',
    );
    const status = await runCli(['status', '--json'], { cwd: repo?.dir ?? '' });
    expect(JSON.parse(status.stdout)).toMatchObject({
      runs: [{ change: CHANGE, state: 'interrupted' }],
    });
  });

  it('after a stopped run has ended, q on Result leaves quietly with the run’s code (130)', async () => {
    const s = start('quit-after');
    await runUntilThinking(s);
    s.keys('q');
    await s.waitFor(/the run has ended/);
    s.keys('Enter');
    await s.waitFor(/Changed files/);
    s.keys('q');
    expect(await s.waitForExit()).toBe(130);
    expect(s.scrollback()).not.toContain('quit at once');
    expect(repo?.git('branch', '--show-current').trim()).toBe('main');
  });
});
