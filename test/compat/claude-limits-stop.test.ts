// End to end: `ralphtool run --agent claude --on-limit stop` with the REAL Claude Code binary at a
// claude.ai subscription's usage limit: the run ends at once with outcome `limited` (exit 5),
// the attempt is not counted, and `resume` after the reset completes the story as its attempt 1.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import {
  claudeBinPath,
  claudeEnv,
  startModelServer,
  type ScriptedTurn,
} from '../support/model-server.js';
import { asSubscriber, failFirst, usageLimit429 } from '../support/model-server-limits.js';
import { makeChangeRepo } from '../support/temp-repo.js';
import { scriptByAttempt } from './conversations.js';

const CHANGE = 'add-greeter';
const TASKS = `openspec/changes/${CHANGE}/tasks.md`;
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

describe('--on-limit stop with the real claude binary', () => {
  it('stops at the usage limit with outcome limited (exit 5), uncharged and resumable', async () => {
    const repo = makeChangeRepo(CHANGE, [{ title: 'Greeter', tasks: ['Create the greeter'] }]);
    cleanups.push(() => repo.remove());
    const tick: ScriptedTurn[] = [
      [
        {
          tool: 'Bash',
          input: {
            command: `sed -i 's/^- \\[ \\] 1\\.1 /- [x] 1.1 /' ${TASKS}`,
            description: 'Tick task 1.1',
          },
        },
      ],
      [{ text: 'Ticked.\n\n<promise>COMPLETE</promise>' }],
    ];
    // An hour ahead: nothing waits for it here (`resume` is what a user runs after the reset).
    const resetAt = Math.floor(Date.now() / 1000) + 3600;
    const server = await startModelServer(
      failFirst(1, usageLimit429(resetAt), scriptByAttempt({ '1-1': tick })),
    );
    cleanups.push(() => server.close());
    const home = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-e2e-home-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));
    const env = {
      ...asSubscriber(claudeEnv(server.url, home)),
      RALPHTOOL_CLAUDE_BIN: claudeBinPath(),
    };
    const cli = (args: string[]) => runCli(args, { cwd: repo.dir, env, timeoutMs: 240_000 });

    const stopped = await cli([
      'run',
      CHANGE,
      '--agent',
      'claude',
      '--json',
      '--on-complete',
      'keep',
      '--on-limit',
      'stop',
    ]);
    const events = stopped.events();
    expect(stopped.exitCode).toBe(5);
    expect(events.filter((e) => e.type === 'attempt.failed')).toEqual([]);
    const said = events.find(
      (e) => e.type === 'error' && String(e['message']).includes('--on-limit stop'),
    );
    expect(said).toMatchObject({ fatal: false });
    expect(String(said?.['message'])).toContain(new Date(resetAt * 1000).toISOString());
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'limited' });
    const state = JSON.parse(
      readFileSync(path.join(repo.dir, '.git/ralphtool', CHANGE, 'state.json'), 'utf8'),
    ) as { stories: Record<string, { attempts: number }> };
    expect(state.stories['1']?.attempts ?? 0).toBe(0);
    expect(repo.git('status', '--porcelain')).toBe('');

    const status = await cli(['status', '--json']);
    const runs = (JSON.parse(status.stdout) as { runs: { change: string; next: string }[] }).runs;
    expect(runs.find((r) => r.change === CHANGE)?.next).toMatch(/resume/);

    const resumed = await cli(['resume', CHANGE, '--json', '--on-complete', 'keep']);
    expect(resumed.exitCode).toBe(0);
    const after = resumed.events();
    expect(after.find((e) => e.type === 'story.completed')).toMatchObject({
      storyId: '1',
      attempts: 1,
    });
    expect(after.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'complete' });
    expect(server.errors).toEqual([]);
  });
});
