// End to end: `ralphtool run --agent claude` with the REAL Claude Code binary, whose model
// answers the first request of story 1 with a limit (429 with the unified-limit headers of a
// claude.ai subscription, or 529 overloaded) and then serves normally: the limit is waited out,
// the limited attempt is not charged, and the story then completes.
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../support/cli.js';
import {
  claudeBinPath,
  claudeEnv,
  startModelServer,
  type ModelServer,
  type Script,
  type ScriptedTurn,
} from '../support/model-server.js';
import {
  asSubscriber,
  failFirst,
  overloaded529,
  usageLimit429,
} from '../support/model-server-limits.js';
import { makeChangeRepo, type TempRepo } from '../support/temp-repo.js';
import { scriptByAttempt } from '../compat/conversations.js';

const CHANGE = 'add-greeter';
const TASKS = `openspec/changes/${CHANGE}/tasks.md`;
const cleanups: (() => Promise<void> | void)[] = [];

afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

type Event = { type: string; ts: string; [key: string]: unknown };

function oneStoryRepo(): TempRepo {
  const repo = makeChangeRepo(CHANGE, [{ title: 'Greeter', tasks: ['Create the greeter'] }]);
  cleanups.push(() => repo.remove());
  return repo;
}

/** Story 1's one attempt: tick the task with Bash, then say COMPLETE. */
function story1(): Script {
  const turns: ScriptedTurn[] = [
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
  return scriptByAttempt({ '1-1': turns });
}

async function serve(script: Script): Promise<ModelServer> {
  const server = await startModelServer(script);
  cleanups.push(() => server.close());
  return server;
}

async function runRalph(
  repo: TempRepo,
  server: ModelServer,
  env: Record<string, string | undefined> = {},
): Promise<CliRun> {
  const home = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-e2e-home-'));
  cleanups.push(() => rmSync(home, { recursive: true, force: true }));
  const result = await runCli(
    ['run', CHANGE, '--agent', 'claude', '--json', '--on-complete', 'keep'],
    {
      cwd: repo.dir,
      env: {
        ...asSubscriber(claudeEnv(server.url, home)),
        RALPHTOOL_CLAUDE_BIN: claudeBinPath(),
        ...env,
      },
      timeoutMs: 240_000,
    },
  );
  expect(server.errors.map((e) => e.message)).toEqual([]);
  return result;
}

const only = (events: Event[], type: string): Event => {
  const found = events.filter((e) => e.type === type);
  expect(found, type).toHaveLength(1);
  return found[0] as Event;
};

describe('a usage limit met by the real claude binary is waited out', () => {
  it('429 with the unified-limit headers: waits until the reset, then the story completes uncharged', async () => {
    const repo = oneStoryRepo();
    const resetAt = Math.floor(Date.now() / 1000) + 4;
    const server = await serve(failFirst(1, usageLimit429(resetAt), story1()));

    const result = await runRalph(repo, server);
    const events = result.events() as Event[];

    expect(result.exitCode).toBe(0);
    const limited = only(events, 'agent.limited');
    expect(limited).toMatchObject({
      storyId: '1',
      attempt: 1,
      kind: 'usage',
      source: 'claude rate_limit_event',
      resetsAt: new Date(resetAt * 1000).toISOString(),
    });
    const resumed = only(events, 'limit.resumed');
    expect(resumed).toMatchObject({ storyId: '1' });
    // The wait lasted at least until the reset the API announced, and came before the retry.
    expect(Date.parse(resumed.ts)).toBeGreaterThanOrEqual(resetAt * 1000);
    expect(events.indexOf(limited)).toBeLessThan(events.indexOf(resumed));
    expect(events.filter((e) => e.type === 'attempt.failed')).toEqual([]);
    expect(only(events, 'story.completed')).toMatchObject({ storyId: '1', attempts: 1 });
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'complete' });
    // Claude Code did not retry the subscriber's 429 itself: one request, then the retry's two.
    expect(server.mainTurns()).toBe(3);
  });

  it('529 overloaded: waits its backoff, then the story completes uncharged', async () => {
    const repo = oneStoryRepo();
    // Claude Code retries 529 itself (ten times by default, about three minutes; once here), then
    // reports it: both requests of the first attempt are answered 529.
    const server = await serve(failFirst(2, overloaded529(), story1()));

    const result = await runRalph(repo, server, { CLAUDE_CODE_MAX_RETRIES: '1' });
    const events = result.events() as Event[];

    expect(result.exitCode).toBe(0);
    const limited = only(events, 'agent.limited');
    expect(limited).toMatchObject({
      storyId: '1',
      attempt: 1,
      kind: 'overloaded',
      source: 'claude result (API 529)',
      resetsAt: null,
    });
    const resumed = only(events, 'limit.resumed');
    const waitMs = limited['waitMs'] as number;
    expect(waitMs).toBeGreaterThan(0);
    // Timer granularity: a timeout may fire a millisecond before its nominal end.
    expect(Date.parse(resumed.ts) - Date.parse(limited.ts)).toBeGreaterThanOrEqual(waitMs - 2);
    expect(events.filter((e) => e.type === 'attempt.failed')).toEqual([]);
    expect(only(events, 'story.completed')).toMatchObject({ storyId: '1', attempts: 1 });
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'complete' });
  });
});
