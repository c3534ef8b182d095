import { chmodSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../support/cli.js';
import { FAKE_AGENT, quote } from '../../support/fake-agent.js';
import { makeChangeRepo, type TempRepo } from '../../support/temp-repo.js';
import { TmuxSession, tmuxAvailable } from '../../support/tmux.js';

const CHANGE = 'add-greeting';

/**
 * The UI with a `claude` that prints lines of a kind ralphtool does not know (a newer Claude
 * Code): the story's log shows a notice naming the kind and what to do, and the run goes on.
 */
describe.skipIf(!tmuxAvailable())('the UI with an agent printing unknown line kinds', () => {
  let repo: TempRepo | undefined;
  let session: TmuxSession | undefined;

  afterEach(() => {
    session?.kill();
    repo?.remove();
  });

  it('shows a notice in the story’s log, then the story completes', async () => {
    repo = makeChangeRepo(CHANGE, [{ title: 'Greeting', tasks: ['Write hello'] }]);
    const gitDir = path.join(repo.dir, '.git');
    const scenario = path.join(gitDir, 'scenario.json');
    const go = path.join(gitDir, 'go');
    writeFileSync(
      scenario,
      JSON.stringify({
        '1-1': [
          { raw: JSON.stringify({ type: 'thought_summary', text: 'x' }) },
          { say: 'thinking hard' },
          { waitFor: go },
          { write: 'hello.txt', content: 'hello\n' },
          { tick: 'all' },
          { signal: 'COMPLETE' },
        ],
      }),
    );
    // Claude Code's program as RALPHTOOL_CLAUDE_BIN: the fake agent speaking stream-json.
    const claude = path.join(gitDir, 'fake-claude');
    writeFileSync(claude, `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(FAKE_AGENT)} "$@"\n`);
    chmodSync(claude, 0o755);
    session = TmuxSession.start(
      `ralphtool-unrecognised-${process.pid}`,
      [process.execPath, CLI_PATH, '--agent', 'claude'],
      {
        cwd: repo.dir,
        env: {
          FAKE_AGENT_SCENARIO: scenario,
          FAKE_AGENT_FORMAT: 'claude',
          RALPHTOOL_CLAUDE_BIN: claude,
          IS_SANDBOX: '1',
          NO_COLOR: '1',
        },
        width: 120,
      },
    );
    const s = session;
    await s.waitFor(/› add-greeting/);
    s.keys('Enter');
    await s.waitFor(/Story 1: Greeting/);
    s.keys('r');
    await s.waitFor(/Story 1 · running/);
    s.keys('Tab');
    await s.waitFor(/thinking hard/);
    const log = await s.waitFor(/unknown agent output \(thought_summary\)/);
    // Wrapped over the log's lines: the kind, who printed it and the fix.
    const words = log.replace(/\s+/g, ' ');
    expect(words).toContain('⚠ unknown agent output (thought_summary): Claude Code printed lines');
    expect(words).toContain('upgrade ralphtool, or pin Claude Code to 2.1.197');
    writeFileSync(go, '');
    const done = await s.waitFor(/› Cleanup/, 60_000);
    expect(done).toContain('Stories 1/1 done');
    s.keys('Right', 'Enter');
    await s.waitFor(/Changed files/, 60_000);
    s.keys('q');
    expect(await s.waitForExit(60_000)).toBe(0);
  }, 120_000);
});
