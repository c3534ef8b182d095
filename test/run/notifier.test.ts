import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/events.js';
import { createNotifier, type NotifierConfig } from '../../src/run/unattended/notify.js';
import { eventually, quote } from './helpers.js';

const RECORDER = path.resolve('test/fixtures/notify/record.mjs');

function recorder(out: string, ...extra: string[]): string {
  return [process.execPath, RECORDER, out, ...extra].map(quote).join(' ');
}

function told(out: string): { event: string; message: string; stdin: Record<string, unknown> }[] {
  if (!existsSync(out)) return [];
  return readFileSync(out, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const call = JSON.parse(line) as {
        stdin: string;
        env: { RALPHTOOL_EVENT: string; RALPHTOOL_MESSAGE: string };
      };
      return {
        event: call.env.RALPHTOOL_EVENT,
        message: call.env.RALPHTOOL_MESSAGE,
        stdin: JSON.parse(call.stdin) as Record<string, unknown>,
      };
    });
}

const LIMITED: RunEvent = {
  type: 'agent.limited',
  storyId: '2',
  attempt: 1,
  kind: 'usage',
  source: 'exit 75',
  message: 'usage limit reached',
  resetsAt: '2026-11-23T15:02:00.000Z',
  waitMs: 120_000,
};
const RESUMED: RunEvent = { type: 'limit.resumed', storyId: '2', waitedMs: 120_000 };
const STARTED: RunEvent = {
  type: 'story.started',
  storyId: '2',
  title: 'Two',
  index: 2,
  total: 2,
  completed: 1,
  attempt: 2,
};
const FINISHED: RunEvent = {
  type: 'run.finished',
  outcome: 'complete',
  choice: 'keep',
  branch: 'ralph/add-greeter',
  originalBranch: 'main',
  storiesCompleted: 2,
  storiesTotal: 2,
  costUsd: 0,
  durationMs: 1_000,
};

let dir = '';
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-notifier-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

function setUp(config: Partial<NotifierConfig>): {
  passed: RunEvent[];
  notifier: ReturnType<typeof createNotifier>;
} {
  const passed: RunEvent[] = [];
  const notifier = createNotifier({
    change: 'add-greeter',
    programs: [],
    urls: [],
    timeoutMs: 30_000,
    cwd: dir,
    env: process.env,
    next: (event) => passed.push(event),
    holdFinished: false,
    ...config,
  });
  return { passed, notifier };
}

describe('the notifier', () => {
  it('a limit wait: its start and end are told in order, and the loop never waits for a delivery', async () => {
    const out = path.join(dir, 'limit.jsonl');
    const gate = `${out}.gate`;
    const { passed, notifier } = setUp({ programs: [recorder(out, '--gate', gate)] });
    notifier.emit(LIMITED);
    // The first delivery is held at the gate; the loop goes on and its events pass at once.
    expect(await eventually(() => existsSync(`${gate}.waiting`))).toBe(true);
    notifier.emit(RESUMED);
    notifier.emit(STARTED);
    expect(passed).toEqual([LIMITED, RESUMED, STARTED]);
    expect(told(out)).toEqual([]);
    writeFileSync(gate, '');
    await notifier.settled();
    const calls = told(out);
    expect(calls.map((c) => c.event)).toEqual(['agent.limited', 'limit.resumed']);
    expect(calls[0]?.stdin).toMatchObject({ ...LIMITED, text: calls[0]?.message });
    expect(calls[0]?.message).toBe(
      'add-greeter is waiting 2m (until 15:02 UTC, as the agent said): the usage limit was reached on story 2; it tries again by itself, nothing to do',
    );
    expect(calls[1]?.message).toBe(
      'add-greeter: the wait is over after 2m; story 2 is tried again',
    );
  });

  it('headless: run.finished is passed on after the deliveries, their failures before it', async () => {
    const { passed, notifier } = setUp({
      programs: ['ralphtool-no-such-notify-program'],
      holdFinished: true,
    });
    notifier.emit(STARTED);
    notifier.emit(FINISHED);
    expect(passed).toEqual([STARTED]);
    await notifier.settled();
    expect(passed).toEqual([
      STARTED,
      {
        type: 'error',
        message:
          'notification (run.finished) not delivered: --notify `ralphtool-no-such-notify-program` was not found',
        fatal: false,
      },
      FINISHED,
    ]);
  });

  it('the UI: run.finished is passed on at once', () => {
    const { passed, notifier } = setUp({ programs: ['ralphtool-no-such-notify-program'] });
    notifier.emit(FINISHED);
    expect(passed).toEqual([FINISHED]);
  });

  it('a run that ends on an error no run.finished reports is told as an error event, once', async () => {
    const out = path.join(dir, 'fatal.jsonl');
    const { passed, notifier } = setUp({ programs: [recorder(out)] });
    notifier.fatal('git failed: index.lock exists');
    notifier.fatal('a second one');
    await notifier.settled();
    expect(passed).toEqual([]);
    const calls = told(out);
    expect(calls.map((c) => c.event)).toEqual(['error']);
    expect(calls[0]?.stdin).toMatchObject({
      type: 'error',
      message: 'git failed: index.lock exists',
      fatal: true,
    });
    expect(calls[0]?.message).toBe(
      'add-greeter stopped on an error: git failed: index.lock exists; see `ralphtool status`',
    );
  });

  it('an error after run.finished was told is not told again', async () => {
    const out = path.join(dir, 'after.jsonl');
    const { notifier } = setUp({ programs: [recorder(out)] });
    notifier.emit(FINISHED);
    notifier.fatal('the lock could not be released');
    await notifier.settled();
    expect(told(out).map((c) => c.event)).toEqual(['run.finished']);
  });

  it('the commands in a message are the ones the user’s shell reaches', async () => {
    const out = path.join(dir, 'reach.jsonl');
    const { notifier } = setUp({
      programs: [recorder(out)],
      phrase: (m) => m.replace(/`ralphtool /g, '`npx ralphtool '),
    });
    notifier.emit({ type: 'story.blocked', storyId: '1', attempt: 1, question: 'Which port?' });
    await notifier.settled();
    expect(told(out)[0]?.message).toContain('`npx ralphtool resume add-greeter --answer "…"`');
  });
});
