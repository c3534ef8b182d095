import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { CLI_PATH, runCli } from '../../support/cli.js';
import { TmuxSession, tmuxAvailable } from '../../support/tmux.js';
import {
  eventually,
  fakeAgentFlags,
  processGone,
  procStat,
  quote,
  RunFixture,
  single,
  stories,
  succeed,
} from '../../run/helpers.js';
import type { LiveCli } from '../../support/live-cli.js';
import { killGroup } from '../../support/processes.js';

// The terminal closes (SIGHUP: the window is closed, an SSH session drops) during a headless
// run: that is a stop like Ctrl-C (agent group killed, partial work saved and reverted, exit
// 130), except that nobody is left to make the completion choice, so the run stays resumable.

const CHANGE = 'hang-up';

let fixture: RunFixture | undefined;
let strayGroup: number | null = null;
afterEach(() => {
  killGroup(strayGroup);
  strayGroup = null;
  fixture?.remove();
  fixture = undefined;
});

/** Story 1 is accepted; story 2 writes a file, says so, then hangs with a child process. */
function hangingFixture(): RunFixture {
  return new RunFixture(CHANGE, stories(2)).scenario({
    '1-1': succeed('src/one.txt', 'one\n'),
    '2-*': [
      { write: 'src/partial.txt', content: 'half-way\n' },
      { say: 'working on story 2' },
      { hang: true, withChild: true },
    ],
  });
}

async function agentHanging(
  f: RunFixture,
  live: LiveCli,
): Promise<{ group: number; child: number }> {
  await live.waitFor((e) => e.type === 'agent.message' && e.text === 'working on story 2');
  const pidFile = path.join(f.logDir, 'child-2-1.pid');
  // Written by the agent as the test reads it: wait for a whole pid of a live process.
  const childPid = (): number => (existsSync(pidFile) ? f.childPid('2', 1) : 0);
  expect(await eventually(() => childPid() > 0 && procStat(childPid()) !== null)).toBe(true);
  const child = childPid();
  const stat = procStat(child);
  if (stat === null) throw new Error('the agent’s child is not running');
  return { group: stat.pgrp, child };
}

/** What a hang-up must leave: the attempt saved and reverted, the run active and resumable. */
async function expectStoppedAndResumable(f: RunFixture, live: LiveCli): Promise<void> {
  const exit = await live.exited;
  expect(exit, live.stderr).toEqual({ code: 130, signal: null });
  expect(live.stderr).toContain('the terminal closed (SIGHUP): stopping');
  expect(single(live.events, 'run.finished')).toMatchObject({ outcome: 'stopped', choice: null });
  await expectRevertedAndResumable(f);
}

/** The attempt of story 2 saved and reverted, the run active; `resume` then finishes it. */
async function expectRevertedAndResumable(f: RunFixture): Promise<void> {
  expect(f.currentBranch()).toBe(`ralph/${CHANGE}`);
  expect(f.subjects(`main..ralph/${CHANGE}`)).toEqual(['initial state', 'checkpoint: 1']);
  expect(f.status()).toEqual([]);
  expect(f.exists('src/partial.txt')).toBe(false);
  expect(f.git('show', `refs/ralphtool/${CHANGE}/attempts/2-1:src/partial.txt`)).toBe('half-way\n');
  expect(f.state()).toMatchObject({ status: 'active' });

  f.scenario({ '*': succeed('src/two.txt', 'two\n') });
  const resumed = await runCli(
    ['resume', CHANGE, ...fakeAgentFlags(), '--json', '--on-complete', 'keep'],
    { cwd: f.dir, env: f.env(), timeoutMs: 240_000 },
  );
  expect(resumed.exitCode, resumed.stderr).toBe(0);
  expect(f.subjects(`main..ralph/${CHANGE}`)).toEqual([
    'initial state',
    'checkpoint: 1',
    'checkpoint: 2',
  ]);
}

describe('ralphtool run: the terminal closes (SIGHUP)', () => {
  it('while the agent runs: its group is killed, its work saved and reverted, the run left resumable (exit 130)', async () => {
    fixture = hangingFixture();
    const f = fixture;
    const live = f.spawn(['--json', '--on-complete', 'keep']);
    const pids = await agentHanging(f, live);
    strayGroup = pids.group;

    live.signal('SIGHUP');
    await expectStoppedAndResumable(f, live);
    expect(processGone(pids.child)).toBe(true);
    expect(processGone(pids.group)).toBe(true);
  });

  it('a hang-up sent twice is one stop, never a quit at once', async () => {
    fixture = hangingFixture();
    const f = fixture;
    const live = f.spawn(['--json', '--on-complete', 'cleanup']);
    const pids = await agentHanging(f, live);
    strayGroup = pids.group;

    live.signal('SIGHUP');
    live.signal('SIGHUP');
    await expectStoppedAndResumable(f, live);
    expect(live.stderr).not.toContain('quitting now');
  });

  it('while a --verify command runs: it is killed and the attempt reverted, the run left resumable', async () => {
    fixture = new RunFixture(CHANGE, stories(2)).scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
      '2-*': [{ write: 'src/partial.txt', content: 'half-way\n' }, ...succeed('src/x.txt', 'x\n')],
    });
    const f = fixture;
    const ready = path.join(f.logDir, 'verify-2.pid');
    // Passes at once for story 1; for story 2 it records its pid and hangs.
    const verify = `require('node:fs').existsSync('src/partial.txt') && (require('node:fs').writeFileSync(${JSON.stringify(ready)}, String(process.pid)), setInterval(() => {}, 1000));`;
    const live = f.spawn([
      '--json',
      '--on-complete',
      'keep',
      '--verify',
      `${quote(process.execPath)} -e ${quote(verify)}`,
    ]);
    await live.waitUntil(() => existsSync(ready));
    live.signal('SIGHUP');
    await expectStoppedAndResumable(f, live);
    expect(processGone(Number(readFileSync(ready, 'utf8')))).toBe(true);
  });
});

// The honest hang-up: the program runs in a real terminal (tmux) and the terminal goes away
// under it. Only the recorder that notes its exit status ignores the hang-up.
/** Ended by the hang-up itself once the stop was done (129), never by an abort at exit (134). */
const HUNG_UP = 129;

describe.skipIf(!tmuxAvailable())('a real terminal closing (tmux kill-session)', () => {
  let session: TmuxSession | undefined;
  afterEach(() => session?.kill());

  function startInTerminal(f: RunFixture, argv: string[]): TmuxSession {
    const env: Record<string, string> = { NO_COLOR: '1' };
    for (const [key, value] of Object.entries(f.env())) if (value !== undefined) env[key] = value;
    session = TmuxSession.start(`ralphtool-hup-${process.pid}-${Date.now()}`, argv, {
      cwd: f.dir,
      env,
      width: 120,
      height: 40,
    });
    return session;
  }

  async function closeTerminal(f: RunFixture, s: TmuxSession): Promise<number> {
    const pidFile = path.join(f.logDir, 'child-2-1.pid');
    expect(await eventually(() => existsSync(pidFile) && f.childPid('2', 1) > 0)).toBe(true);
    const child = f.childPid('2', 1);
    strayGroup = procStat(child)?.pgrp ?? null;
    execFileSync('tmux', ['kill-session', '-t', s.name], { stdio: 'ignore' });
    const code = await s.waitForExit(120_000);
    expect(processGone(child)).toBe(true);
    return code;
  }

  it('a headless run in it stops, saves and reverts the attempt, and stays resumable (ended by the SIGHUP)', async () => {
    fixture = hangingFixture();
    const f = fixture;
    const s = startInTerminal(f, [process.execPath, CLI_PATH, 'run', CHANGE, ...fakeAgentFlags()]);
    expect(await closeTerminal(f, s)).toBe(HUNG_UP);
    await expectRevertedAndResumable(f);
  });

  it('the interactive UI in it stops the run, saves and reverts the attempt, and stays resumable (ended by the SIGHUP)', async () => {
    fixture = hangingFixture();
    const f = fixture;
    const s = startInTerminal(f, [process.execPath, CLI_PATH, ...fakeAgentFlags()]);
    await s.waitFor(new RegExp(`› ${CHANGE}`));
    s.keys('Enter');
    await s.waitFor(/Story 1/);
    s.keys('r');
    expect(await closeTerminal(f, s)).toBe(HUNG_UP);
    await expectRevertedAndResumable(f);
  });
});
