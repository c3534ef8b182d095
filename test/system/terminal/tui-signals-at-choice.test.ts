import { execFileSync } from 'node:child_process';
import {
  appendFileSync,
  existsSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  realpathSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH, runCli } from '../../support/cli.js';
import { fakeAgentFlags, quote } from '../../support/fake-agent.js';
import { eventually, procStat } from '../../support/processes.js';
import { makeChangeRepo, type TempRepo } from '../../support/temp-repo.js';
import { TmuxSession, tmuxAvailable } from '../../support/tmux.js';

// Wherever the UI waits for the user, a closed terminal (SIGHUP) or a SIGTERM must end
// ralphtool promptly: the completion choice goes unanswered, the run is released for `resume` /
// `finish`, the user's files are untouched and no process of the run is left. SIGHUP ends it by
// the SIGHUP itself (129, see main.ts); SIGTERM quits with 130 and restores the terminal.

const CHANGE = 'add-greeting';
const QUESTION = 'Which greeting: hello or hi?';
const SIGNAL_EXIT = { SIGHUP: 129, SIGTERM: 130 } as const;
type Signal = keyof typeof SIGNAL_EXIT;

/** The user's own files, outside the run: an untracked note and an ignored secret. */
const USER_FILES = { 'notes.txt': 'my notes\n', 'secret.env': 'TOKEN=abc\n' };

const COMPLETES = [
  { write: 'hello.txt', content: 'hello\n' },
  { tick: 'all' },
  { signal: 'COMPLETE' },
];

describe.skipIf(!tmuxAvailable())('SIGHUP and SIGTERM where the UI waits for the user', () => {
  let repo: TempRepo | undefined;
  let session: TmuxSession | undefined;

  afterEach(() => {
    session?.kill();
    repo?.remove();
  });

  /** The UI on a one-story change played by `scenario`; returns the session and ralphtool's pid. */
  async function startUi(
    name: string,
    scenario: unknown,
    agent?: (dir: string) => string,
  ): Promise<TmuxSession> {
    repo = makeChangeRepo(CHANGE, [{ title: 'Greeting', tasks: ['Write hello'] }]);
    appendFileSync(path.join(repo.dir, '.git', 'info', 'exclude'), 'secret.env\n');
    for (const [file, content] of Object.entries(USER_FILES)) {
      writeFileSync(path.join(repo.dir, file), content);
    }
    const scenarioFile = path.join(repo.dir, '.git', 'scenario.json');
    writeFileSync(scenarioFile, JSON.stringify(scenario));
    session = TmuxSession.start(
      `ralphtool-sig-${name}-${process.pid}`,
      [process.execPath, CLI_PATH, ...fakeAgentFlags(agent?.(repo.dir)), '--max-retries', '0'],
      { cwd: repo.dir, env: { FAKE_AGENT_SCENARIO: scenarioFile, NO_COLOR: '1' }, width: 120 },
    );
    execFileSync('tmux', ['pipe-pane', '-o', '-t', session.name, `cat >> ${quote(rawOutput())}`]);
    await session.waitFor(/› add-greeting/);
    return session;
  }

  /** The bytes the pane received (piped out by tmux). */
  function rawOutput(): string {
    return path.join(repo?.dir ?? '', '.git', 'pane.raw');
  }

  /** Opens the change and runs it. */
  async function run(s: TmuxSession): Promise<void> {
    s.keys('Enter');
    await s.waitFor(/Story 1: Greeting/);
    s.keys('r');
  }

  /** Runs the change until the agent's transcript (Tab) shows it thinking. */
  async function runUntilThinking(s: TmuxSession): Promise<void> {
    await run(s);
    await s.waitFor(/attempt 1 of/);
    s.keys('Tab');
    await s.waitFor(/thinking hard/);
  }

  /** ralphtool's pid: the child of the exit recorder that tmux runs in the pane. */
  function ralphtoolPid(s: TmuxSession): number {
    const panePid = Number(
      execFileSync('tmux', ['list-panes', '-t', s.name, '-F', '#{pane_pid}'], {
        encoding: 'utf8',
      }).trim(),
    );
    const children = livePids().filter((pid) => parentOf(pid) === panePid);
    expect(children).toHaveLength(1);
    return children[0] ?? 0;
  }

  /** Sends `signal`, then waits (bounded) for ralphtool to end; returns its exit status. */
  async function signalAndWait(s: TmuxSession, signal: Signal): Promise<number> {
    process.kill(ralphtoolPid(s), signal);
    return s.waitForExit(60_000);
  }

  /** Ended as expected, the user's files byte for byte, nothing of the run left running. */
  async function expectCleanEnd(s: TmuxSession, status: number, signal: Signal): Promise<void> {
    expect(status).toBe(SIGNAL_EXIT[signal]);
    const dir = repo?.dir ?? '';
    for (const [file, content] of Object.entries(USER_FILES)) {
      expect(readFileSync(path.join(dir, file), 'utf8')).toBe(content);
    }
    // No process (ralphtool, an agent, a verify command) is left working in the repository.
    expect(await eventually(() => processesIn(dir).length === 0)).toBe(true);
    if (signal === 'SIGTERM') {
      await expectTerminalRestored(rawOutput());
      await s.waitForText('ralphtool: SIGTERM: quit; any run is left on disk');
      expect(s.screen()).not.toMatch(/Cleanup|Changed files|Story 1: Greeting/);
    }
  }

  async function status(): Promise<string> {
    return (await runCli(['status'], { cwd: repo?.dir ?? '' })).stdout;
  }

  describe.each(['SIGHUP', 'SIGTERM'] as const)('%s', (signal) => {
    it('at the completion choice: the choice unanswered, the run waits for `finish`', async () => {
      const s = await startUi(`choice-${signal}`, { '*': COMPLETES });
      await run(s);
      await s.waitFor(/› Cleanup/);
      await expectCleanEnd(s, await signalAndWait(s, signal), signal);
      const said = await status();
      expect(said).toContain(`ralphtool finish ${CHANGE} --cleanup|--keep`);
      expect(readFileSync(path.join(repo?.dir ?? '', 'hello.txt'), 'utf8')).toBe('hello\n');
      expect(repo?.git('branch', '--show-current').trim()).toBe(`ralph/${CHANGE}`);
    });

    it('on the Result screen after a choice (keep): the run is finished as chosen', async () => {
      const s = await startUi(`result-${signal}`, { '*': COMPLETES });
      await run(s);
      await s.waitFor(/› Cleanup/);
      s.keys('Right', 'Enter');
      await s.waitFor(/Changed files/);
      await expectCleanEnd(s, await signalAndWait(s, signal), signal);
      expect(await status()).toContain(`${CHANGE}  finished (kept`);
      expect(repo?.git('branch', '--show-current').trim()).toBe(`ralph/${CHANGE}`);
    });

    it('on the change list, no run started: nothing is recorded', async () => {
      const s = await startUi(`list-${signal}`, { '*': COMPLETES });
      await expectCleanEnd(s, await signalAndWait(s, signal), signal);
      expect(repo?.git('branch', '--show-current').trim()).toBe('main');
      expect(repo?.git('status', '--porcelain')).toBe('?? notes.txt\n');
    });

    it('on the Result screen of a blocked run: the question stays open for `resume --answer`', async () => {
      const s = await startUi(`blocked-${signal}`, {
        '*': [{ write: 'hello.txt', content: 'half\n' }, { signal: `BLOCKED: ${QUESTION}` }],
      });
      await run(s);
      await s.waitForText(`Story 1 asks: ${QUESTION}`);
      await expectCleanEnd(s, await signalAndWait(s, signal), signal);
      const said = await status();
      expect(said).toContain(QUESTION);
      expect(said).toContain(`ralphtool resume ${CHANGE} --answer`);
    });

    it('during a usage-limit wait: ends long before the reset, the run resumable', async () => {
      // The reset is an hour ahead: only a prompt end passes the bounded wait for the exit.
      const resetsAt = new Date(Date.now() + 3_600_000).toISOString();
      const s = await startUi(`limit-${signal}`, {
        '*': [{ stderr: `ralphtool-resets-at: ${resetsAt}` }, { exit: 75 }],
      });
      await run(s);
      await s.waitFor(/⏸ usage limit/, 60_000);
      await expectCleanEnd(s, await signalAndWait(s, signal), signal);
      const said = await status();
      expect(said).toMatch(new RegExp(`ralphtool (resume|finish) ${CHANGE}`));
      expect(repo?.git('branch', '--show-current').trim()).toBe(`ralph/${CHANGE}`);
    });
  });

  it('SIGTERM during an attempt stops it and shows the choice; a second SIGTERM there quits', async () => {
    const s = await startUi('term-twice', {
      '*': [{ write: 'hello.txt', content: 'half' }, { say: 'thinking hard' }, { hang: true }],
    });
    await runUntilThinking(s);
    process.kill(ralphtoolPid(s), 'SIGTERM');
    await s.waitFor(/› Cleanup/);
    expect(s.exitStatus()).toBeNull();
    await expectCleanEnd(s, await signalAndWait(s, 'SIGTERM'), 'SIGTERM');
    expect(await status()).toContain(`ralphtool finish ${CHANGE} --cleanup|--keep`);
  });

  it('a second SIGTERM while the first stop is under way quits at once (130)', async () => {
    // An agent that notes the SIGTERM of the stop and ignores it: the stop waits for its grace
    // period, during which the second SIGTERM comes.
    let termed = '';
    const s = await startUi('term-stopping', {}, (dir) => {
      termed = path.join(dir, '.git', 'agent-termed');
      const script = path.join(dir, '.git', 'stubborn-agent.mjs');
      writeFileSync(
        script,
        [
          "import { writeFileSync } from 'node:fs';",
          `process.on('SIGTERM', () => writeFileSync(${JSON.stringify(termed)}, 'term'));`,
          "console.log('thinking hard');",
          'setInterval(() => {}, 1000);',
        ].join('\n'),
      );
      return script;
    });
    await runUntilThinking(s);
    const pid = ralphtoolPid(s);
    process.kill(pid, 'SIGTERM');
    expect(await eventually(() => existsSync(termed))).toBe(true);
    process.kill(pid, 'SIGTERM');
    expect(await s.waitForExit(60_000)).toBe(130);
    expect(await s.waitForText('quit at once; any run in progress is left on disk')).toBeTruthy();
    await expectTerminalRestored(rawOutput());
    const said = await runCli(['status', '--json'], { cwd: repo?.dir ?? '' });
    expect(JSON.parse(said.stdout)).toMatchObject({ runs: [{ change: CHANGE }] });
    for (const [file, content] of Object.entries(USER_FILES)) {
      expect(readFileSync(path.join(repo?.dir ?? '', file), 'utf8')).toBe(content);
    }
  });
});

function livePids(): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      const state = procStat(pid)?.state;
      return state !== undefined && state !== 'Z' && state !== 'X';
    });
}

function parentOf(pid: number): number {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(text.slice(text.lastIndexOf(')') + 2).split(' ')[1]);
  } catch {
    return 0;
  }
}

/** Live processes whose working directory is `dir` or inside it. */
function processesIn(where: string): number[] {
  const dir = realpathSync(where);
  return livePids().filter((pid) => {
    try {
      const cwd = readlinkSync(`/proc/${pid}/cwd`);
      return cwd === dir || cwd.startsWith(`${dir}${path.sep}`);
    } catch {
      return false;
    }
  });
}

/**
 * The terminal restored: in the bytes the pane received, the last cursor mode shows it and the
 * last alternate-screen mode leaves it. (tmux's own cursor flag is not read: a dead pane's is
 * not the program's.) Polled: tmux may pipe the last bytes after the exit status is written.
 */
async function expectTerminalRestored(raw: string): Promise<void> {
  const last = (mode: string): string | undefined => {
    const text = existsSync(raw) ? readFileSync(raw, 'latin1') : '';
    return [...text.matchAll(new RegExp(`\\u001b\\[\\?${mode}([hl])`, 'g'))].at(-1)?.[1];
  };
  expect(await eventually(() => last('25') === 'h' && last('1049') === 'l')).toBe(true);
}
