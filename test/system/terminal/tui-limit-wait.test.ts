import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH, runCli } from '../../support/cli.js';
import { fakeAgentFlags } from '../../support/fake-agent.js';
import { makeChangeRepo, type TempRepo } from '../../support/temp-repo.js';
import { TmuxSession, tmuxAvailable } from '../../support/tmux.js';

const CHANGE = 'add-greeting';
const COUNTDOWN = /⏸ usage limit \(exit 75\): story 1 again at [\d:\s-]+, in (\w+) \(the attempt/;

/** The loop screen counts a usage-limit wait down, then the story runs again and completes. */
describe.skipIf(!tmuxAvailable())('the UI during a usage-limit wait', () => {
  let repo: TempRepo | undefined;
  let session: TmuxSession | undefined;
  let logDir: string | undefined;

  afterEach(() => {
    session?.kill();
    repo?.remove();
    if (logDir) rmSync(logDir, { recursive: true, force: true });
  });

  /** The UI on a change whose story meets a limit resetting `seconds` ahead, then succeeds. */
  async function startWaiting(seconds: number): Promise<{ s: TmuxSession; waiting: string }> {
    repo = makeChangeRepo(CHANGE, [{ title: 'Greeting', tasks: ['Write hello'] }]);
    logDir = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-tui-limit-'));
    const scenario = path.join(repo.dir, '.git', 'scenario.json');
    const resetsAt = new Date(Date.now() + seconds * 1000).toISOString();
    writeFileSync(
      scenario,
      JSON.stringify({
        '1-1#1': [{ stderr: `ralphtool-resets-at: ${resetsAt}` }, { exit: 75 }],
        '1-1#2': [
          { write: 'hello.txt', content: 'hello\n' },
          { tick: 'all' },
          { signal: 'COMPLETE' },
        ],
      }),
    );
    session = TmuxSession.start(
      `ralphtool-limit-wait-${process.pid}`,
      [process.execPath, CLI_PATH, ...fakeAgentFlags()],
      {
        cwd: repo.dir,
        env: { FAKE_AGENT_SCENARIO: scenario, FAKE_AGENT_LOG_DIR: logDir, NO_COLOR: '1' },
        width: 120,
      },
    );
    const s = session;
    await s.waitFor(/› add-greeting/);
    s.keys('Enter');
    await s.waitFor(/Story 1: Greeting/);
    s.keys('r');
    return { s, waiting: await s.waitFor(COUNTDOWN, 60_000) };
  }

  it('shows a live countdown on the loop screen, then the story completes', async () => {
    // The reset is a few seconds ahead: the wait is that plus the 10 s margin.
    const { s, waiting } = await startWaiting(3);
    const first = COUNTDOWN.exec(waiting)?.[1];
    expect(waiting).toContain('Story 1 · waiting for the usage limit · attempt 1 of 4');
    // The countdown moves while nothing else happens (the screen is redrawn every second).
    const later = await s.waitFor((screen) => {
      const now = COUNTDOWN.exec(screen)?.[1];
      return now !== undefined && now !== first;
    }, 60_000);
    expect(later).toMatch(COUNTDOWN);
    // Then the same story runs again and completes: the completion choice comes.
    const done = await s.waitFor(/› Cleanup/, 90_000);
    expect(done).not.toMatch(COUNTDOWN);
    expect(done).toContain('Stories 1/1 done');
    // Keep, then leave: the run ends on its branch, and ralphtool exits (0).
    s.keys('Right', 'Enter');
    await s.waitFor(/Changed files/, 60_000);
    s.keys('q');
    expect(await s.waitForExit(60_000)).toBe(0);
  }, 180_000);

  it('q during the wait stops the run at once, long before the reset', async () => {
    const { s } = await startWaiting(600);
    s.keys('q');
    const ended = await s.waitFor(/the run has ended/, 60_000);
    expect(ended).not.toMatch(COUNTDOWN);
    s.keys('Enter');
    await s.waitFor(/Changed files/);
    s.keys('q');
    expect(await s.waitForExit()).toBe(130);
    const status = await runCli(['status', '--json'], { cwd: repo?.dir ?? '' });
    const run = (JSON.parse(status.stdout) as { runs: Record<string, unknown>[] }).runs[0];
    expect(run).toMatchObject({ outcome: 'stopped', wait: null });
  }, 180_000);
});
