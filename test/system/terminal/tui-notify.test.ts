import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../support/cli.js';
import { fakeAgentFlags, quote } from '../../support/fake-agent.js';
import { eventually } from '../../support/processes.js';
import { makeChangeRepo, type TempRepo } from '../../support/temp-repo.js';
import { TmuxSession, tmuxAvailable } from '../../support/tmux.js';

const CHANGE = 'add-greeting';
const RECORDER = path.resolve('test/fixtures/notify/record.mjs');

function told(out: string): { env: Record<string, string>; stdin: string }[] {
  return readFileSync(out, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as { env: Record<string, string>; stdin: string });
}

/** The UI in a real terminal: closing it does not cut the run's notifications short. */
describe.skipIf(!tmuxAvailable())('notifications of the UI', () => {
  let repo: TempRepo | undefined;
  let session: TmuxSession | undefined;

  afterEach(() => {
    session?.kill();
    repo?.remove();
  });

  /** The UI on `scenario`, with a --notify program that waits at `gate`, appending to `out`. */
  function start(steps: unknown[]): { s: TmuxSession; out: string; gate: string } {
    repo = makeChangeRepo(CHANGE, [{ title: 'Greeting', tasks: ['Write hello'] }]);
    const scenario = path.join(repo.dir, '.git', 'scenario.json');
    const out = path.join(repo.dir, '.git', 'notified.jsonl');
    const gate = path.join(repo.dir, '.git', 'gate');
    writeFileSync(scenario, JSON.stringify({ '*': steps }));
    const notify = [process.execPath, RECORDER, out, '--gate', gate].map(quote).join(' ');
    session = TmuxSession.start(
      `ralphtool-notify-${process.pid}-${Date.now()}`,
      [process.execPath, CLI_PATH, ...fakeAgentFlags(), '--notify', notify],
      { cwd: repo.dir, env: { FAKE_AGENT_SCENARIO: scenario, NO_COLOR: '1' } },
    );
    return { s: session, out, gate };
  }

  it('the terminal closing during a run: the run stops, and ralphtool ends only once the user was told', async () => {
    const { s, out, gate } = start([{ say: 'thinking hard' }, { hang: true }]);
    await s.waitFor(/› add-greeting/);
    s.keys('Enter');
    await s.waitFor(/Story 1: Greeting/);
    s.keys('r');
    await s.waitFor(/attempt 1 of/);
    execFileSync('tmux', ['kill-session', '-t', s.name], { stdio: 'ignore' });
    // The stopped run's run.finished reached the program, which waits at its gate.
    expect(await eventually(() => existsSync(`${gate}.waiting`), 60_000)).toBe(true);
    expect(s.exitStatus()).toBeNull();
    writeFileSync(gate, '');
    // Ended by the hang-up itself once the stop was done and the user told.
    expect(await s.waitForExit(60_000)).toBe(129);
    const calls = told(out);
    expect(calls.map((c) => c.env.RALPHTOOL_EVENT)).toEqual(['run.finished']);
    expect(JSON.parse(calls[0]?.stdin ?? '{}')).toMatchObject({
      outcome: 'stopped',
      choice: null,
    });
    expect(calls[0]?.env.RALPHTOOL_MESSAGE).toContain(`ralphtool resume ${CHANGE}`);
  });

  it('q on Result closes the UI, and ralphtool ends only once the slow --notify program was told', async () => {
    repo = makeChangeRepo(CHANGE, [{ title: 'Greeting', tasks: ['Write hello'] }]);
    const scenario = path.join(repo.dir, '.git', 'scenario.json');
    const out = path.join(repo.dir, '.git', 'notified.jsonl');
    const gate = path.join(repo.dir, '.git', 'gate');
    writeFileSync(
      scenario,
      JSON.stringify({
        '*': [{ write: 'hello.txt', content: 'hello\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
      }),
    );
    const notify = [process.execPath, RECORDER, out, '--gate', gate].map(quote).join(' ');
    session = TmuxSession.start(
      `ralphtool-notify-${process.pid}`,
      [process.execPath, CLI_PATH, ...fakeAgentFlags(), '--notify', notify],
      { cwd: repo.dir, env: { FAKE_AGENT_SCENARIO: scenario, NO_COLOR: '1' } },
    );
    const s = session;
    await s.waitFor(/› add-greeting/);
    s.keys('Enter');
    await s.waitFor(/Story 1: Greeting/);
    s.keys('r');
    await s.waitFor(/Enter apply/, 60_000);
    s.keys('Right', 'Enter');
    await s.waitFor(/Changed files/, 60_000);
    // run.finished reached the program, which now waits at its gate.
    expect(await eventually(() => existsSync(`${gate}.waiting`), 30_000)).toBe(true);
    s.keys('q');
    await s.waitFor((screen) => !screen.includes('Changed files'));
    expect(s.exitStatus()).toBeNull();
    writeFileSync(gate, '');
    expect(await s.waitForExit(30_000)).toBe(0);
    const calls = readFileSync(out, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { env: Record<string, string> });
    expect(calls.map((c) => c.env.RALPHTOOL_EVENT)).toEqual(['run.finished']);
    expect(calls[0]?.env.RALPHTOOL_MESSAGE).toMatch(/^add-greeting is complete \(1\/1 stories/);
  });
});
