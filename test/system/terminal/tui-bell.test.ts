import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../support/cli.js';
import { fakeAgentFlags, quote } from '../../support/fake-agent.js';
import { eventually } from '../../support/processes.js';
import { makeChangeRepo, type TempRepo } from '../../support/temp-repo.js';
import { TmuxSession, tmuxAvailable } from '../../support/tmux.js';

// The UI needs the user: it rings the terminal bell (BEL), once, when the completion choice
// appears or the run ends blocked on a question, and the Result screen of a blocked run says
// what is asked and the command that answers it. The bell is observed as the byte itself, in
// the raw output tmux pipes out of the pane.

const CHANGE = 'add-greeting';
const QUESTION = 'Which greeting: hello or hi?';
const BEL = 0x07;

describe.skipIf(!tmuxAvailable())('the UI rings the bell when it needs the user', () => {
  let repo: TempRepo | undefined;
  let session: TmuxSession | undefined;

  afterEach(() => {
    session?.kill();
    repo?.remove();
  });

  /** Starts the UI on a repo with one story and this scenario, its raw output piped to a file. */
  function startUi(scenario: unknown): { s: TmuxSession; bells: () => number } {
    repo = makeChangeRepo(CHANGE, [{ title: 'Greeting', tasks: ['Write hello'] }]);
    const scenarioFile = path.join(repo.dir, '.git', 'scenario.json');
    writeFileSync(scenarioFile, JSON.stringify(scenario));
    const raw = path.join(repo.dir, '.git', 'pane-output.raw');
    session = TmuxSession.start(
      `ralphtool-bell-${process.pid}`,
      [process.execPath, CLI_PATH, ...fakeAgentFlags(), '--max-retries', '0'],
      { cwd: repo.dir, env: { FAKE_AGENT_SCENARIO: scenarioFile, NO_COLOR: '1' } },
    );
    // tmux runs this with its own shell; it only appends the pane's output bytes to a file.
    execFileSync('tmux', ['pipe-pane', '-o', '-t', session.name, `cat >> ${quote(raw)}`]);
    const bells = (): number =>
      existsSync(raw) ? [...readFileSync(raw)].filter((byte) => byte === BEL).length : 0;
    return { s: session, bells };
  }

  it('blocked: one bell, the question and the answer command on the Result screen, no completion choice', async () => {
    const { s, bells } = startUi({
      '*': [{ write: 'hello.txt', content: 'half\n' }, { signal: `BLOCKED: ${QUESTION}` }],
    });
    await s.waitFor(/› add-greeting/);
    s.keys('Enter');
    await s.waitFor(/Story 1: Greeting/);
    expect(bells()).toBe(0);
    s.keys('r');
    const result = await s.waitForText(`Story 1 asks: ${QUESTION}`);
    expect(result).toContain('Blocked: the agent asked a question only you can answer.');
    expect(result).toContain(`ralphtool resume ${CHANGE} --answer "…"`);
    expect(result).not.toMatch(/Cleanup/);
    expect(await eventually(() => bells() === 1)).toBe(true);
    // Scrolling and going back redraw the screen: no second bell.
    s.keys('Down');
    s.keys('Escape');
    await s.waitForText(`${CHANGE} [blocked]`);
    await s.waitForText('blocked: r answer its question here');
    s.keys('q');
    expect(await s.waitForExit()).toBe(4);
    expect(bells()).toBe(1);
  });

  it('the completion choice: one bell when it appears, none after the choice', async () => {
    const { s, bells } = startUi({
      '*': [{ write: 'hello.txt', content: 'hello\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
    });
    await s.waitFor(/› add-greeting/);
    s.keys('Enter');
    await s.waitFor(/Story 1: Greeting/);
    s.keys('r');
    await s.waitFor(/Cleanup/);
    expect(await eventually(() => bells() === 1)).toBe(true);
    s.keys('Enter');
    await s.waitFor(/Changed files against main/);
    s.keys('q');
    expect(await s.waitForExit()).toBe(0);
    expect(bells()).toBe(1);
  });
});
