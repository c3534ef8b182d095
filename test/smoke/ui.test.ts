import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fakeAgentFlags } from '../support/fake-agent.js';
import { CLI_PATH } from '../support/cli.js';
import { makeChangeRepo, type TempRepo } from '../support/temp-repo.js';
import { TmuxSession, tmuxAvailable } from '../support/tmux.js';

const CHANGE = 'add-greeting';

/**
 * The interactive UI in a real terminal: open it, pick the change, run, watch a story
 * fail and retry and one complete, stop during an attempt, choose Cleanup — then check
 * the repository the way a user would find it.
 */
describe.skipIf(!tmuxAvailable())('ralphtool UI under tmux', () => {
  let repo: TempRepo | undefined;
  let session: TmuxSession | undefined;

  afterEach(() => {
    session?.kill();
    repo?.remove();
  });

  it('runs a change, retries a failure, stops on q and cleans up', async () => {
    repo = makeChangeRepo(CHANGE, [
      { title: 'Greeting', tasks: ['Write hello'] },
      { title: 'Docs', tasks: ['Write docs'] },
      { title: 'Extras', tasks: ['Write extras'] },
    ]);
    repo.write('notes.txt', 'my uncommitted notes\n');
    const scenario = path.join(repo.dir, '.git', 'scenario.json');
    writeFileSync(
      scenario,
      JSON.stringify({
        '1-1': [
          { write: 'hello.txt', content: 'broken' },
          { say: 'first try' },
          { sleep: 300 },
          { signal: 'FAILED: the greeting module is missing' },
        ],
        '1-2': [
          { write: 'hello.txt', content: 'hello\n' },
          { tick: 'all' },
          { signal: 'COMPLETE' },
        ],
        '2-*': [{ write: 'docs.md', content: 'docs\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
        '3-*': [
          { write: 'extras.txt', content: 'half done' },
          { say: 'thinking hard' },
          { hang: true },
        ],
      }),
    );
    session = TmuxSession.start(
      `ralphtool-tui-${process.pid}`,
      [process.execPath, CLI_PATH, ...fakeAgentFlags(), '--max-retries', '2'],
      {
        cwd: repo.dir,
        // CI set as some dev containers set it, whatever runs this test: Ink draws nothing but
        // a last frame under CI unless ralphtool clears it from its own environment.
        env: { FAKE_AGENT_SCENARIO: scenario, NO_COLOR: '1', CI: 'true' },
        width: 100,
        height: 30,
      },
    );

    await session.waitFor(/› add-greeting/);
    session.keys('Enter');
    await session.waitFor(/Story 1: Greeting/);
    expect(await session.waitFor(/max retries 2|retries 2/i)).toMatch(/max retries 2|retries 2/i);
    session.keys('r');

    // Story 1 fails once and is retried with its reason, then stories 1 and 2 complete.
    const failed = await session.waitFor(/failed-signal: the greeting module is missing/);
    expect(failed).toMatch(/#1 ✗/);
    await session.waitFor(/2\/3 stories/);
    await session.waitFor(/Story 3 · running/);
    session.keys('Tab');
    await session.waitFor(/thinking hard/);

    // q stops the loop: the agent is killed, its partial work reverted, then the choice.
    session.keys('q');
    const completion = await session.waitFor(/Cleanup/);
    expect(completion).toMatch(/Stopped/i);
    expect(completion).toContain('original branch main');
    session.keys('Enter');
    const result = await session.waitFor(/Changed files against main/);
    expect(result).toMatch(/A docs\.md/);
    expect(result).toMatch(/A hello\.txt/);
    expect(result).not.toMatch(/extras\.txt/);
    session.keys('q');
    expect(await session.waitForExit()).toBe(130);

    // Back on main with the two stories' work uncommitted, the user's notes intact.
    expect(repo.git('branch', '--show-current').trim()).toBe('main');
    expect(repo.git('branch', '--list', 'ralph/*').trim()).toBe('');
    const status = repo.git('status', '--porcelain').split('\n').filter(Boolean).sort();
    expect(status).toEqual([
      ` M openspec/changes/${CHANGE}/tasks.md`,
      '?? docs.md',
      '?? hello.txt',
      '?? notes.txt',
    ]);
    expect(repo.git('log', '--format=%s')).toBe('initial commit\n');
    expect(repo.git('show', 'refs/ralphtool/add-greeting/attempts/1-1:hello.txt')).toBe('broken');
  });
});
