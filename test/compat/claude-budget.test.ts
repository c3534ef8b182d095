// End to end: the REAL Claude Code binary given `--max-budget-usd` by ralphtool's budget, its
// model the scripted server answering with a usage that costs more than the budget allows.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { claudeBinPath, claudeEnv, startModelServer } from '../support/model-server.js';
import { makeChangeRepo, type TempRepo } from '../support/temp-repo.js';
import { ofType, single } from '../support/run-events.js';
import { scriptByAttempt } from './conversations.js';

const CHANGE = 'add-budgeted';
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Event = { type: string; [key: string]: unknown };

describe('the real claude binary at the budget ralphtool gave it', () => {
  it('stops itself at --max-budget-usd; the run ends with outcome budget (exit 5), the attempt reverted, saved and not counted', async () => {
    const repo: TempRepo = makeChangeRepo(CHANGE, [
      { title: 'One', tasks: ['Write one'] },
      { title: 'Two', tasks: ['Write two'] },
    ]);
    cleanups.push(() => repo.remove());
    const file = path.join(repo.dir, 'src/one.txt');
    const write = (n: number) => [
      { tool: 'Write', input: { file_path: `${file}.${n}`, content: `${n}\n` } },
    ];
    // Every answer reports 10,000 input tokens: $0.03 (Sonnet prices) to $0.05 (Opus) a request,
    // so a budget of $0.06 lets the first Write run and is spent by the second or third request,
    // whatever the binary's default model.
    const server = await startModelServer(
      scriptByAttempt({ '1-1': [write(1), write(2), write(3), write(4)] }),
      {
        usage: {
          input_tokens: 10_000,
          output_tokens: 10,
          cache_read_input_tokens: 0,
          cache_creation_input_tokens: 0,
        },
      },
    );
    cleanups.push(() => server.close());
    const home = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-e2e-home-'));
    cleanups.push(() => rmSync(home, { recursive: true, force: true }));

    const result = await runCli(
      ['run', CHANGE, '--agent', 'claude', '--json', '--on-complete', 'keep', '--max-cost', '0.06'],
      {
        cwd: repo.dir,
        env: { ...claudeEnv(server.url, home), RALPHTOOL_CLAUDE_BIN: claudeBinPath() },
        timeoutMs: 240_000,
      },
    );
    expect(server.errors.map((e) => e.message)).toEqual([]);
    expect(result.exitCode, result.stderr).toBe(5);
    const events = result.stdout
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Event);

    // Claude Code stopped before its last scripted request: the budget, not the script, ended it.
    expect(server.mainTurns()).toBeLessThan(4);
    const agentResult = single(events, 'agent.result');
    expect(agentResult).toMatchObject({ isError: true });
    expect(agentResult['costUsd'] as number).toBeGreaterThan(0.06);
    // Not the agent's failure: no attempt.failed, no warning of an agent error.
    expect(ofType(events, 'attempt.failed')).toEqual([]);
    expect(ofType(events, 'error')).toEqual([]);
    expect(single(events, 'limit.reached')).toMatchObject({
      limit: 'max-cost',
      message: expect.stringMatching(
        /^spent \$0\.\d+ of --max-cost \$0\.06 \(the agent stopped at the budget it was given\)$/,
      ) as unknown,
    });
    expect(single(events, 'checkpoint.reverted')).toMatchObject({
      storyId: '1',
      attempt: 1,
      savedRef: `refs/ralphtool/${CHANGE}/attempts/1-1`,
    });
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'budget' });
    // What Write made before the stop is in the saved attempt, not in the tree.
    const saved = repo.git('ls-tree', '-r', '--name-only', `refs/ralphtool/${CHANGE}/attempts/1-1`);
    expect(saved).toContain('src/one.txt.1');
    expect(repo.git('status', '--porcelain').trim()).toBe('');
    const stateFile = path.join(repo.dir, '.git/ralphtool', CHANGE, 'state.json');
    const state = JSON.parse(readFileSync(stateFile, 'utf8')) as {
      stories: Record<string, { attempts: number; costUsd: number }>;
    };
    expect(state.stories['1']?.attempts).toBe(0);
    expect(state.stories['1']?.costUsd).toBeGreaterThan(0.06);
  });
});
