import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { NOTIFIED_EVENT_TYPES } from '../../../src/core/notify-message.js';
import { runCli } from '../../support/cli.js';
import type { LiveCli } from '../../support/live-cli.js';
import {
  eventually,
  fakeAgentFlags,
  processGone,
  quote,
  RunFixture,
  single,
  stories,
  succeed,
} from '../../run/helpers.js';

const CHANGE = 'add-greeter';
const RECORDER = path.resolve('test/fixtures/notify/record.mjs');

/** What one call of the recording notify program was given. */
interface Received {
  argv: string[];
  cwd: string;
  stdin: string;
  env: { RALPHTOOL_EVENT?: string; RALPHTOOL_CHANGE?: string; RALPHTOOL_MESSAGE?: string };
}

/** `--notify` command line of the recording program, appending to `out`, with `extra` words. */
function recorder(out: string, ...extra: string[]): string {
  return [process.execPath, RECORDER, out, ...extra].map(quote).join(' ');
}

function received(out: string): Received[] {
  if (!existsSync(out)) return [];
  return readFileSync(out, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as Received);
}

/** The event a call got on stdin: exactly one JSON line. */
function stdinEvent(call: Received): Record<string, unknown> {
  expect(call.stdin.endsWith('\n')).toBe(true);
  expect(call.stdin.slice(0, -1)).not.toContain('\n');
  return JSON.parse(call.stdin) as Record<string, unknown>;
}

function withoutTimeAndText(event: Record<string, unknown>): Record<string, unknown> {
  const { ts: _ts, text: _text, ...rest } = event;
  return rest;
}

let fixture: RunFixture | undefined;
let live: LiveCli | undefined;
const pids: number[] = [];
afterEach(async () => {
  if (live) {
    live.signal('SIGKILL');
    await live.exited;
    live = undefined;
  }
  // A notify program the limit failed to kill must not outlive the test.
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  fixture?.remove();
  fixture = undefined;
});

describe('--notify: who is told what', () => {
  it('run.finished goes to every program: one JSON line on stdin (the --json line with ts), RALPHTOOL_EVENT, _CHANGE and _MESSAGE', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario({ '1-1': succeed('src/a.txt', 'a\n') });
    const f = fixture;
    const first = path.join(f.scratch, 'first.jsonl');
    const second = path.join(f.scratch, 'second.jsonl');
    const result = await f.run([
      '--json',
      '--notify',
      recorder(first),
      '--notify',
      recorder(second),
    ]);
    expect(result.exitCode).toBe(0);
    const events = result.events();
    const finished = single(events, 'run.finished');
    // Nothing is written after run.finished, and no delivery failed.
    expect(events[events.length - 1]).toBe(finished);
    expect(events.filter((e) => e.type === 'error')).toEqual([]);

    for (const out of [first, second]) {
      const calls = received(out);
      expect(calls.map((c) => c.env.RALPHTOOL_EVENT)).toEqual(['run.finished']);
      const [call] = calls;
      if (call === undefined) throw new Error('no call');
      const told = stdinEvent(call);
      expect(withoutTimeAndText(told)).toEqual(withoutTimeAndText(finished));
      expect(Number.isNaN(Date.parse(String(told.ts)))).toBe(false);
      expect(call.env.RALPHTOOL_CHANGE).toBe(CHANGE);
      expect(call.env.RALPHTOOL_MESSAGE).toMatch(
        /^add-greeter is complete \(1\/1 stories done, \d+s\); its work is on ralph\/add-greeter, one commit per story$/,
      );
      expect(told.text).toBe(call.env.RALPHTOOL_MESSAGE);
      // It runs where ralphtool was started.
      expect(call.cwd).toBe(f.dir);
    }
  });

  it('an exhausted story, then the end of the run, in that order', async () => {
    fixture = new RunFixture(CHANGE, stories(2)).scenario({
      '1-*': [{ signal: 'FAILED: the tests need a database' }],
    });
    const f = fixture;
    const out = path.join(f.scratch, 'out.jsonl');
    const result = await f.run(['--max-retries', '1', '--notify', recorder(out)]);
    expect(result.exitCode).toBe(3);
    const calls = received(out);
    expect(calls.map((c) => c.env.RALPHTOOL_EVENT)).toEqual(['story.exhausted', 'run.finished']);
    const [exhausted, finished] = calls.map(stdinEvent);
    expect(exhausted).toMatchObject({ type: 'story.exhausted', storyId: '1', attempts: 2 });
    expect(calls[0]?.env.RALPHTOOL_MESSAGE).toContain(
      `${CHANGE}: story 1 failed all 2 attempts (failed-signal: the tests need a database)`,
    );
    expect(finished).toMatchObject({ type: 'run.finished', outcome: 'max-retries' });
    expect(calls[1]?.env.RALPHTOOL_MESSAGE).toContain(`ralphtool resume ${CHANGE}`);
  });

  it('a question: story.blocked and the blocked run.finished both say what is asked and how to answer (exit 4)', async () => {
    fixture = new RunFixture(CHANGE, stories(2)).scenario({
      '1-1': [{ signal: 'BLOCKED: Postgres or SQLite for the greetings table?' }],
    });
    const f = fixture;
    const out = path.join(f.scratch, 'out.jsonl');
    const result = await f.run(['--json', '--notify', recorder(out)]);
    expect(result.exitCode).toBe(4);
    const calls = received(out);
    expect(calls.map((c) => c.env.RALPHTOOL_EVENT)).toEqual(['story.blocked', 'run.finished']);
    const [blocked, finished] = calls.map(stdinEvent);
    expect(blocked).toMatchObject({
      type: 'story.blocked',
      storyId: '1',
      question: 'Postgres or SQLite for the greetings table?',
    });
    expect(finished).toMatchObject({ type: 'run.finished', outcome: 'blocked' });
    for (const call of calls) {
      expect(call.env.RALPHTOOL_MESSAGE).toContain(
        `${CHANGE} is blocked: story 1 asks: Postgres or SQLite for the greetings table?`,
      );
      expect(call.env.RALPHTOOL_MESSAGE).toContain(
        `answer with \`ralphtool resume ${CHANGE} --answer "…"\``,
      );
    }
  });

  it('a usage limit: every limit event of the run is told, in the order of the stream', async () => {
    // The agent's convention: a reset time a few seconds ahead, then exit 75.
    const resetsAt = new Date(Date.now() + 3_000).toISOString();
    fixture = new RunFixture(CHANGE, stories(1)).scenario({
      // The first start of attempt 1 only: the limited attempt is not counted, and runs again.
      '1-1#1': [{ stderr: `ralphtool-resets-at: ${resetsAt}` }, { exit: 75 }],
      '1-*': succeed('src/a.txt', 'a\n'),
    });
    const f = fixture;
    const out = path.join(f.scratch, 'out.jsonl');
    const result = await f.run(['--json', '--notify', recorder(out)]);
    const notified = new Set<string>(NOTIFIED_EVENT_TYPES);
    const stream = result.events().filter((e) => notified.has(e.type));
    const calls = received(out);
    expect(calls.map((c) => c.env.RALPHTOOL_EVENT)).toEqual(stream.map((e) => e.type));
    expect(calls.map(stdinEvent).map(withoutTimeAndText)).toEqual(stream.map(withoutTimeAndText));
    const finished = single(result.events(), 'run.finished');
    // Without the wait (an engine that stops at a limit) the run ends limited (exit 5) and says
    // so; with it, the wait's start and end are told before the run goes on.
    if (stream.some((e) => e.type === 'agent.limited')) {
      expect(stream.map((e) => e.type).slice(0, 2)).toEqual(['agent.limited', 'limit.resumed']);
      expect(calls[0]?.env.RALPHTOOL_MESSAGE).toContain(`${CHANGE} is waiting`);
    } else {
      expect(result.exitCode).toBe(5);
      expect(finished).toMatchObject({ outcome: 'limited' });
      expect(calls.at(-1)?.env.RALPHTOOL_MESSAGE).toContain(
        `${CHANGE} stopped at a usage limit (0/1 stories done`,
      );
    }
  });

  it('a command line is never run by a shell: ; $(…) | > and backquotes reach the program as words', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario({ '1-1': succeed('src/a.txt', 'a\n') });
    const f = fixture;
    const out = path.join(f.scratch, 'out.jsonl');
    const words = [';', 'touch', 'pwned', '$(touch', 'pwned2)', '|', 'tee', 'x', '>', 'y', '`id`'];
    const line = `${recorder(out)} ; touch pwned $(touch pwned2) | tee x > y \`id\``;
    const before = readdirSync(f.dir).sort();
    const result = await f.run(['--notify', line]);
    expect(result.exitCode).toBe(0);
    const [call] = received(out);
    expect(call?.argv).toEqual([out, ...words]);
    expect(readdirSync(f.dir).sort()).toEqual(before);
    expect(readdirSync(f.scratch).filter((n) => /^(pwned|pwned2|x|y)$/.test(n))).toEqual([]);
  });
});

describe('--notify on resume', () => {
  it('a resumed run tells its end too', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario({
      '1-*': [{ signal: 'BLOCKED: Which greeting?' }],
    });
    const f = fixture;
    expect((await f.run([])).exitCode).toBe(4);
    f.scenario({ '1-*': succeed('src/a.txt', 'a\n') });
    const out = path.join(f.scratch, 'out.jsonl');
    const resumed = await runCli(
      [
        'resume',
        CHANGE,
        ...fakeAgentFlags(),
        '--answer',
        'Hello',
        '--on-complete',
        'keep',
        '--notify',
        recorder(out),
      ],
      { cwd: f.dir, env: f.env() },
    );
    expect(resumed.exitCode).toBe(0);
    const calls = received(out);
    expect(calls.map((c) => c.env.RALPHTOOL_EVENT)).toEqual(['run.finished']);
    expect(stdinEvent(calls[0] as Received)).toMatchObject({ outcome: 'complete' });
  });

  it('a resume that cannot start (no recorded run) is told as an error, with what it said', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario({ '1-1': succeed('src/a.txt', 'a\n') });
    const f = fixture;
    const out = path.join(f.scratch, 'out.jsonl');
    const resumed = await runCli(
      ['resume', CHANGE, ...fakeAgentFlags(), '--json', '--notify', recorder(out)],
      { cwd: f.dir, env: f.env() },
    );
    expect(resumed.exitCode).toBe(2);
    const failure = single(resumed.events(), 'error');
    expect(failure.fatal).toBe(true);
    const calls = received(out);
    expect(calls.map((c) => c.env.RALPHTOOL_EVENT)).toEqual(['error']);
    expect(stdinEvent(calls[0] as Received)).toMatchObject({
      type: 'error',
      message: failure.message,
      fatal: true,
    });
    expect(calls[0]?.env.RALPHTOOL_MESSAGE).toBe(
      `${CHANGE} stopped on an error: ${String(failure.message)}; see \`ralphtool status\``,
    );
  });
});

describe('--notify: failures are reported, never fatal', () => {
  it('exit 1, a missing program and one hanging past --notify-timeout (killed with what it started): warnings, and the run ends as it would have', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario({ '1-1': succeed('src/a.txt', 'a\n') });
    const f = fixture;
    const good = path.join(f.scratch, 'good.jsonl');
    const hung = path.join(f.scratch, 'hung.jsonl');
    const pidFile = path.join(f.scratch, 'hang.pid');
    const result = await f.run([
      '--json',
      '--notify-timeout',
      '2s',
      '--notify',
      recorder(path.join(f.scratch, 'failing.jsonl'), '--stderr', 'webhook said no', '--exit', '1'),
      '--notify',
      'ralphtool-no-such-notify-program --token s3cret',
      '--notify',
      recorder(hung, '--hang', pidFile, '--ignore-term'),
      '--notify',
      recorder(good),
    ]);
    expect(result.exitCode).toBe(0);
    const events = result.events();
    const finished = single(events, 'run.finished');
    expect(finished).toMatchObject({ outcome: 'complete' });
    expect(events[events.length - 1]).toBe(finished);
    const warnings = events.filter((e) => e.type === 'error');
    expect(warnings.every((w) => w.fatal === false)).toBe(true);
    const messages = warnings.map((w) => String(w.message)).sort();
    expect(messages).toEqual(
      [
        `notification (run.finished) not delivered: --notify \`${process.execPath}\` failed with exit code 1: webhook said no`,
        'notification (run.finished) not delivered: --notify `ralphtool-no-such-notify-program` was not found',
        `notification (run.finished) not delivered: --notify \`${process.execPath}\` did not finish within 2s and was killed`,
      ].sort(),
    );
    // The arguments of a command line (a token, say) are never shown.
    expect(result.stdout + result.stderr).not.toContain('s3cret');
    // The hanging program got the event, then it and the child it started were killed.
    expect(received(hung).map((c) => c.env.RALPHTOOL_EVENT)).toEqual(['run.finished']);
    const [hook, child] = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number);
    pids.push(hook ?? 0, child ?? 0);
    expect(await eventually(() => processGone(hook ?? 0))).toBe(true);
    expect(await eventually(() => processGone(child ?? 0))).toBe(true);
    // The others were told all the same.
    expect(received(good).map((c) => c.env.RALPHTOOL_EVENT)).toEqual(['run.finished']);
  });

  it('the plain output says a failure as a warning line, before the summary', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario({ '1-1': succeed('src/a.txt', 'a\n') });
    const f = fixture;
    const result = await f.run(['--notify', 'ralphtool-no-such-notify-program']);
    expect(result.exitCode).toBe(0);
    const warning =
      'warning: notification (run.finished) not delivered: --notify `ralphtool-no-such-notify-program` was not found';
    expect(result.stdout).toContain(warning);
    expect(result.stdout.indexOf(warning)).toBeLessThan(
      result.stdout.indexOf('all stories complete'),
    );
  });
});

describe('--notify: ralphtool does not end before the notifications are out', () => {
  it('run.finished is written, and ralphtool exits, only once a slow program has been told', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario({ '1-1': succeed('src/a.txt', 'a\n') });
    const f = fixture;
    const out = path.join(f.scratch, 'out.jsonl');
    const gate = path.join(f.scratch, 'gate');
    live = f.spawn(['--json', '--notify', recorder(out, '--gate', gate)]);
    const cli = live;
    // The program got run.finished and waits: the run itself is over, ralphtool waits for it.
    await cli.waitUntil(() => existsSync(`${gate}.waiting`));
    await cli.waitFor((e) => e.type === 'checkpoint.created');
    expect(cli.types()).not.toContain('run.finished');
    expect(received(out)).toEqual([]);
    writeFileSync(gate, '');
    const exit = await cli.exited;
    live = undefined;
    expect(exit.code).toBe(0);
    expect(received(out).map((c) => c.env.RALPHTOOL_EVENT)).toEqual(['run.finished']);
    expect(cli.types().at(-1)).toBe('run.finished');
  });
});

describe('notifications are part of the run’s intent', () => {
  it('resume as printed tells the program the run told; the record of them stays in the run folder (0600)', async () => {
    fixture = new RunFixture(CHANGE, stories(2)).scenario({
      '1-1': succeed('src/a.txt', 'a\n'),
      '2-1#1': [{ signal: 'BLOCKED: Which colour?' }],
      '2-1#2': succeed('src/b.txt', 'b\n'),
    });
    const f = fixture;
    const told = path.join(f.scratch, 'told.jsonl');
    const first = await f.run(['--notify', recorder(told), '--on-complete', 'keep']);
    expect(first.exitCode, first.stderr).toBe(4);
    expect(received(told).map((c) => c.env.RALPHTOOL_EVENT)).toEqual([
      'story.blocked',
      'run.finished',
    ]);
    const file = path.join(f.dir, '.git', 'ralphtool', CHANGE, 'notify.json');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({ notify: [recorder(told)] });
    expect(statSync(file).mode & 0o777).toBe(0o600);

    // The way on, exactly as printed: no --notify on it, and the program is told the end.
    const printed = /`ralphtool (resume [^`]*--answer "…")`/.exec(first.stdout)?.[1] ?? '';
    expect(printed).toBe(`resume ${CHANGE} --answer "…"`);
    const resumed = await runCli(['resume', CHANGE, '--answer', 'blue'], {
      cwd: f.dir,
      env: f.env(),
    });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const calls = received(told);
    expect(calls.map((c) => c.env.RALPHTOOL_EVENT)).toEqual([
      'story.blocked',
      'run.finished',
      'run.finished',
    ]);
    expect(stdinEvent(calls[2] as Received)).toMatchObject({ outcome: 'complete' });
  });
});
