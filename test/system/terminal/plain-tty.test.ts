import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FAKE_AGENT, fakeAgentFlags } from '../../support/fake-agent.js';
import { CLI_PATH, runCli } from '../../support/cli.js';
import { makeChangeRepo, type TempRepo } from '../../support/temp-repo.js';
import { TmuxSession, tmuxAvailable } from '../../support/tmux.js';

const CHANGE = 'add-greeting';

/** `ralphtool run` (headless) on a real terminal, where it asks and listens to Ctrl-C. */
describe.skipIf(!tmuxAvailable())('ralphtool run on a terminal', () => {
  let repo: TempRepo | undefined;
  let session: TmuxSession | undefined;

  afterEach(() => {
    session?.kill();
    repo?.remove();
  });

  function start(scenario: Record<string, unknown[]>): TmuxSession {
    repo = makeChangeRepo(CHANGE, [
      { title: 'Greeting', tasks: ['Write hello'] },
      { title: 'Docs', tasks: ['Write docs'] },
    ]);
    const file = path.join(repo.dir, '.git', 'scenario.json');
    writeFileSync(file, JSON.stringify(scenario));
    session = TmuxSession.start(
      `ralphtool-plain-${process.pid}-${Date.now()}`,
      [process.execPath, CLI_PATH, 'run', CHANGE, ...fakeAgentFlags()],
      { cwd: repo.dir, env: { FAKE_AGENT_SCENARIO: file, NO_COLOR: '1' }, width: 120, height: 40 },
    );
    return session;
  }

  it('asks cleanup or keep at the end, and keeps on "k"', async () => {
    const s = start({
      '*': [{ write: 'done.txt', content: 'x\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
    });
    await s.waitFor(/Cleanup or keep\? \[C\/k\/l\]/);
    s.keys('k', 'Enter');
    expect(await s.waitForExit()).toBe(0);
    expect(await s.waitForText(/keep: on ralph\/add-greeting/)).toMatch(
      /keep: on ralph\/add-greeting/,
    );
    expect(repo?.git('branch', '--show-current').trim()).toBe(`ralph/${CHANGE}`);
    expect(repo?.git('log', '--format=%s', `main..ralph/${CHANGE}`)).toBe(
      'checkpoint: 2\ncheckpoint: 1\ninitial state\n',
    );
  });

  it('Ctrl-D at the question leaves the run for finish (exit 130), and finish --keep ends it', async () => {
    const s = start({
      '*': [{ write: 'done.txt', content: 'x\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
    });
    await s.waitFor(/Cleanup or keep\? \[C\/k\/l\]/);
    s.keys('C-d');
    expect(await s.waitForExit()).toBe(130);
    expect(await s.waitForText(/no choice was made: the run stays on ralph\/add-greeting/)).toMatch(
      /no choice was made: the run stays on ralph\/add-greeting/,
    );
    expect(s.scrollback()).not.toMatch(/internal error|AbortError/);

    const dir = repo?.dir ?? '';
    expect(repo?.git('branch', '--show-current').trim()).toBe(`ralph/${CHANGE}`);
    const status = JSON.parse((await runCli(['status', '--json'], { cwd: dir })).stdout) as {
      runs: { change: string; state: string; next: string }[];
    };
    expect(status.runs).toEqual([
      expect.objectContaining({ change: CHANGE, state: 'interrupted' }),
    ]);
    expect(status.runs[0]?.next).toMatch(/^ralphtool finish add-greeting --cleanup\|--keep/);
    const finished = await runCli(['finish', CHANGE, '--keep'], { cwd: dir });
    expect(finished.exitCode, finished.stderr).toBe(0);
    expect(finished.stderr).not.toMatch(/warning/);
    expect(repo?.git('log', '--format=%s', `main..ralph/${CHANGE}`)).toBe(
      'checkpoint: 2\ncheckpoint: 1\ninitial state\n',
    );
  });

  it('a second Ctrl-C during the stop quits at once and leaves the run for resume', async () => {
    const s = start({
      '1-*': [
        { ignoreTerm: true },
        { write: 'partial.txt', content: 'half\n' },
        { say: 'busy' },
        { sleep: 60_000 },
      ],
      '2-*': [{ write: 'docs.md', content: 'd\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
    });
    await s.waitFor(/│ busy/);
    s.keys('C-c');
    await s.waitFor(/stopping/);
    // The agent ignores SIGTERM, so the stop waits for its grace period: quit now.
    s.keys('C-c');
    expect(await s.waitForExit()).toBe(130);
    expect(await s.waitForText(/quitting now/)).toMatch(/quitting now/);

    const dir = repo?.dir ?? '';
    const status = JSON.parse((await runCli(['status', '--json'], { cwd: dir })).stdout) as {
      runs: { change: string; state: string }[];
    };
    expect(status.runs).toEqual([
      expect.objectContaining({ change: CHANGE, state: 'interrupted' }),
    ]);

    // The run is recoverable: resume saves the half-done attempt and finishes the change.
    const scenario = path.join(dir, '.git', 'scenario.json');
    writeFileSync(
      scenario,
      JSON.stringify({
        '*': [{ write: 'done.txt', content: 'x\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
      }),
    );
    const resumed = await runCli(
      ['resume', CHANGE, '--agent-command', `${process.execPath} ${FAKE_AGENT}`, '--json'],
      { cwd: dir, env: { FAKE_AGENT_SCENARIO: scenario } },
    );
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.events().at(-1)).toMatchObject({ type: 'run.finished', outcome: 'complete' });
    expect(repo?.git('show', `refs/ralphtool/${CHANGE}/attempts/1-1:partial.txt`)).toBe('half\n');
    expect(repo?.git('ls-tree', '--name-only', `ralph/${CHANGE}`)).not.toContain('partial.txt');
  });

  it('Ctrl-C, then "l" (later) at the question: the run is left for resume (exit 130), and the printed resume finishes it', async () => {
    const s = start({
      '1-1': [{ write: 'partial.txt', content: 'half\n' }, { say: 'busy' }, { sleep: 60_000 }],
      '*': [{ write: 'done.txt', content: 'x\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
    });
    await s.waitFor(/│ busy/);
    s.keys('C-c');
    await s.waitFor(/l {2}later: {3}leave the run on ralph\/add-greeting at its last checkpoint/);
    await s.waitFor(/Cleanup or keep\? \[C\/k\/l\]/);
    s.keys('l', 'Enter');
    expect(await s.waitForExit()).toBe(130);
    const said = await s.waitForText(/carry on with `ralphtool resume add-greeting`/);
    const printed = /carry on with `ralphtool (resume [^`]+)`/.exec(said)?.[1] ?? '';
    expect(printed).toBe(`resume ${CHANGE}`);
    const dir = repo?.dir ?? '';
    expect(repo?.git('branch', '--show-current').trim()).toBe(`ralph/${CHANGE}`);

    // As printed: the run's agent is recorded, so the command needs nothing more. Its agent
    // this time completes the story.
    const scenario = path.join(dir, '.git', 'scenario.json');
    writeFileSync(
      scenario,
      JSON.stringify({
        '*': [{ write: 'done.txt', content: 'x\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
      }),
    );
    const resumed = await runCli([...printed.split(' '), '--json'], {
      cwd: dir,
      env: { FAKE_AGENT_SCENARIO: scenario },
    });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.events().at(-1)).toMatchObject({ type: 'run.finished', outcome: 'complete' });
    expect(repo?.git('show', `refs/ralphtool/${CHANGE}/attempts/1-1:partial.txt`)).toBe('half\n');
  });
});
