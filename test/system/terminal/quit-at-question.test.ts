import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH, runCli } from '../../support/cli.js';
import { fakeAgentFlags } from '../../support/fake-agent.js';
import { makeChangeRepo, type TempRepo } from '../../support/temp-repo.js';
import { TmuxSession, tmuxAvailable } from '../../support/tmux.js';

const CHANGE = 'add-greeting';

/**
 * At the cleanup-or-keep question the terminal is in raw mode, so Ctrl-C reaches the prompt,
 * not the process: it counts as the second Ctrl-C and quits at once, the run left for finish.
 */
describe.skipIf(!tmuxAvailable())('Ctrl-C at the completion question', () => {
  let repo: TempRepo | undefined;
  let session: TmuxSession | undefined;

  afterEach(() => {
    session?.kill();
    repo?.remove();
  });

  it('quits at once with 130 and leaves the finished loop for `finish`', async () => {
    repo = makeChangeRepo(CHANGE, [{ title: 'Greeting', tasks: ['Write hello'] }]);
    const scenario = path.join(repo.dir, '.git', 'scenario.json');
    writeFileSync(
      scenario,
      JSON.stringify({
        '*': [{ write: 'hello.txt', content: 'hello\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
      }),
    );
    session = TmuxSession.start(
      `ralphtool-question-${process.pid}`,
      [process.execPath, CLI_PATH, 'run', CHANGE, ...fakeAgentFlags()],
      { cwd: repo.dir, env: { FAKE_AGENT_SCENARIO: scenario, NO_COLOR: '1' }, width: 120 },
    );
    const s = session;
    await s.waitFor(/Cleanup or keep\? \[C\/k\/l\]/);
    s.keys('C-c');
    expect(await s.waitForExit()).toBe(130);
    const status = await runCli(['status', '--json'], { cwd: repo.dir });
    expect(JSON.parse(status.stdout)).toMatchObject({ runs: [{ change: CHANGE }] });
    expect(repo.git('branch', '--show-current').trim()).toBe(`ralph/${CHANGE}`);
    const finish = await runCli(['finish', CHANGE, '--keep'], { cwd: repo.dir });
    expect(finish.exitCode).toBe(0);
    expect(repo.git('log', '--format=%s', `main..ralph/${CHANGE}`)).toBe(
      'checkpoint: 1\ninitial state\n',
    );
  });
});
