import { chmodSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH, runCli } from '../../support/cli.js';
import { FAKE_AGENT, fakeAgentFlags, quote } from '../../support/fake-agent.js';
import { makeChangeRepo, type TempRepo } from '../../support/temp-repo.js';
import { TmuxSession, tmuxAvailable } from '../../support/tmux.js';

// The UI offers what the shell does: a change whose run is recorded and not finished is
// marked on the change list and can be resumed (r) or finished (c/k, twice) there, and the
// Result screen after a fatal error names the command that continues the run.

const CHANGE = 'add-greeting';

describe.skipIf(!tmuxAvailable())('recorded runs in the UI', () => {
  let repo: TempRepo | undefined;
  let session: TmuxSession | undefined;

  afterEach(() => {
    session?.kill();
    repo?.remove();
  });

  const scenarioFile = (): string => path.join(repo?.dir ?? '', '.git', 'scenario.json');
  const setScenario = (scenario: unknown): void =>
    writeFileSync(scenarioFile(), JSON.stringify(scenario));
  const state = (): Record<string, unknown> =>
    JSON.parse(
      readFileSync(path.join(repo?.dir ?? '', '.git/ralphtool', CHANGE, 'state.json'), 'utf8'),
    ) as Record<string, unknown>;

  /** A headless run that accepted story 1 and ran out of retries on story 2: kept incomplete. */
  async function keptIncomplete(): Promise<TempRepo> {
    repo = makeChangeRepo(CHANGE, [
      { title: 'Greeting', tasks: ['Write hello'] },
      { title: 'Farewell', tasks: ['Write bye'] },
    ]);
    setScenario({
      '1-*': [{ write: 'hello.txt', content: 'hello\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
      '2-*': [{ signal: 'FAILED: not today' }],
    });
    const first = await runCli(
      ['run', CHANGE, ...fakeAgentFlags(), '--max-retries', '0', '--on-complete', 'keep'],
      { cwd: repo.dir, env: { FAKE_AGENT_SCENARIO: scenarioFile() } },
    );
    expect(first.exitCode, first.stderr).toBe(3);
    expect(state()).toMatchObject({ status: 'active', choice: 'keep' });
    return repo;
  }

  function startUi(name: string, argv: string[], env: Record<string, string> = {}): TmuxSession {
    session = TmuxSession.start(`ralphtool-${name}-${process.pid}`, argv, {
      cwd: repo?.dir ?? '',
      env: { FAKE_AGENT_SCENARIO: scenarioFile(), NO_COLOR: '1', ...env },
    });
    return session;
  }

  it('marks a kept incomplete run and resumes it with r', async () => {
    await keptIncomplete();
    setScenario({
      '*': [{ write: 'bye.txt', content: 'bye\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
    });
    // The run's --max-retries 0 is recorded; the UI's own flag gives the story another try.
    const s = startUi('resume', [
      process.execPath,
      CLI_PATH,
      ...fakeAgentFlags(),
      '--max-retries',
      '1',
    ]);
    await s.waitForText(`${CHANGE} [kept incomplete]`);
    await s.waitForText('r resume · c/k finish (cleanup/keep)');
    s.keys('r');
    await s.waitFor(/the run has ended/);
    s.keys('Right'); // keep
    s.keys('Enter');
    await s.waitFor(/Kept: you are on ralph\/add-greeting/);
    s.keys('q');
    expect(await s.waitForExit()).toBe(0);
    expect(state()).toMatchObject({ status: 'finished', outcome: 'complete', choice: 'keep' });
    expect(repo?.git('log', '--format=%s', 'main..ralph/add-greeting').trim().split('\n')).toEqual([
      'checkpoint: 2',
      'checkpoint: 1',
      'initial state',
    ]);
  });

  it('finishes a kept incomplete run with c pressed twice (cleanup), after which it is unmarked', async () => {
    await keptIncomplete();
    const s = startUi('finish', [process.execPath, CLI_PATH, ...fakeAgentFlags()]);
    await s.waitForText(`${CHANGE} [kept incomplete]`);
    s.keys('c');
    await s.waitForText('press c again to finish add-greeting with cleanup');
    // Any other key cancels; nothing was changed.
    s.keys('Down');
    await s.waitForText('r resume · c/k finish (cleanup/keep)');
    expect(state()).toMatchObject({ status: 'active' });
    s.keys('c');
    await s.waitForText('press c again');
    s.keys('c');
    await s.waitForText('cleanup done: back on main');
    await s.waitFor((screen) => screen.includes(CHANGE) && !screen.includes('[kept incomplete]'));
    s.keys('q');
    expect(await s.waitForExit()).toBe(0);
    expect(state()).toMatchObject({ status: 'finished', choice: 'cleanup' });
    expect(repo?.git('branch', '--show-current').trim()).toBe('main');
    expect(readFileSync(path.join(repo?.dir ?? '', 'hello.txt'), 'utf8')).toBe('hello\n');
  });

  it('the Result screen after a fatal error says how to continue; the list marks the run interrupted', async () => {
    repo = makeChangeRepo(CHANGE, [{ title: 'Greeting', tasks: ['Write hello'] }]);
    setScenario({
      '*': [
        { write: 'hello.txt', content: 'half\n' },
        { isError: 'Invalid API key · Please run /login' },
      ],
    });
    const claude = path.join(repo.dir, '.git', 'fake-claude');
    writeFileSync(claude, `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(FAKE_AGENT)} "$@"\n`);
    chmodSync(claude, 0o755);
    const s = startUi('fatal', [process.execPath, CLI_PATH, '--agent', 'claude'], {
      RALPHTOOL_CLAUDE_BIN: claude,
      FAKE_AGENT_FORMAT: 'claude',
      IS_SANDBOX: '1',
    });
    await s.waitFor(/› add-greeting/);
    s.keys('Enter');
    await s.waitFor(/Story 1: Greeting/);
    s.keys('r');
    await s.waitForText('stopped on an error');
    await s.waitForText(`ralphtool resume ${CHANGE}`);
    await s.waitForText(`ralphtool finish ${CHANGE} --cleanup|--keep`);
    s.keys('Escape');
    await s.waitForText(`${CHANGE} [interrupted]`);
    s.keys('q');
    expect(await s.waitForExit()).toBe(1);
    expect(state()).toMatchObject({ status: 'active', outcome: 'error' });
  });

  it('answers a blocked run in the UI: r, the answer typed, Enter; the agent gets it and the run completes', async () => {
    repo = makeChangeRepo(CHANGE, [{ title: 'Greeting', tasks: ['Write hello'] }]);
    setScenario({ '*': [{ signal: 'BLOCKED: Should the greeting be formal?' }] });
    const first = await runCli(['run', CHANGE, ...fakeAgentFlags(), '--on-complete', 'keep'], {
      cwd: repo.dir,
      env: { FAKE_AGENT_SCENARIO: scenarioFile() },
    });
    expect(first.exitCode, first.stderr).toBe(4);
    setScenario({
      '*': [{ write: 'hello.txt', content: 'hello\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
    });
    const logDir = path.join(repo.dir, '.git', 'agent-log');
    const s = startUi('answer', [process.execPath, CLI_PATH, ...fakeAgentFlags()], {
      FAKE_AGENT_LOG_DIR: logDir,
    });
    await s.waitForText(`${CHANGE} [blocked]`);
    await s.waitForText('blocked: r answer its question here');
    s.keys('r');
    await s.waitForText(`answer for ${CHANGE}:`);
    // Typed as a person would: q and k are text here, not quit and keep.
    s.keys('-l', 'Informal, quick and kind');
    await s.waitForText('Informal, quick and kind');
    s.keys('Enter');
    await s.waitFor(/the run has ended/);
    s.keys('Right'); // keep
    s.keys('Enter');
    await s.waitFor(/Kept: you are on ralph\/add-greeting/);
    s.keys('q');
    expect(await s.waitForExit()).toBe(0);
    expect(state()).toMatchObject({ status: 'finished', outcome: 'complete', choice: 'keep' });
    // The resumed attempt's prompt (the blocked one's number or the next) carries the answer.
    const prompts = readdirSync(logDir)
      .filter((f) => f.startsWith('prompt-1-'))
      .map((f) => readFileSync(path.join(logDir, f), 'utf8'));
    expect(prompts.some((p) => p.includes('Informal, quick and kind'))).toBe(true);
  });
});
