import { afterEach, describe, expect, it } from 'vitest';
import type { EventJson } from '../../support/live-cli.js';
import { FaultWorld, succeed, type Step } from './support/world.js';
import { clockTime } from '../../../src/format/clock.js';

// Usage limits waited out by the real CLI (docs/contract.md, "Usage limits"): the command
// agent's convention (exit 75, `ralphtool-resets-at:`), the fake agent as a real process.
// Resets are seconds ahead (a wait is the reset plus the 10 s margin), or far ahead where the
// test ends the wait itself: no test waits minutes.

const CHANGE = 'limit-cli';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

function secondsAhead(seconds: number): string {
  return new Date(Date.now() + seconds * 1000).toISOString();
}

/** A limited attempt: work of its own (reverted), the reset line, exit 75. */
function limited(resetsAt: string): Step[] {
  return [
    { write: 'src/partial.txt', content: 'half-way\n' },
    { append: 'src/app.txt', content: 'broken by the agent\n' },
    { stderr: `ralphtool-resets-at: ${resetsAt}` },
    { exit: 75 },
  ];
}

/** Story 1 meets a limit on its first start and succeeds on its second; story 2 succeeds. */
function limitedOnce(resetsAt: string): FaultWorld {
  return new FaultWorld(CHANGE, 2).scenario({
    '1-1#1': limited(resetsAt),
    '1-1#2': succeed('src/one.txt', 'one\n'),
    '2-1': succeed('src/two.txt', 'two\n'),
  });
}

/**
 * The moment as the user's terminal shows it now: `HH:MM` today, with the date on another day
 * (a wait that ends after midnight; format/clock.ts).
 */
function hhmm(at: number): string {
  return clockTime(at, Date.now());
}

function index(events: EventJson[], type: string): number {
  return events.findIndex((e) => e.type === type);
}

function types(events: EventJson[]): string[] {
  return events.map((e) => e.type).filter((t) => !t.startsWith('agent.') || t === 'agent.limited');
}

describe('ralphtool run: a usage limit is waited out', () => {
  it('waits until the reset, then the same story completes as attempt 1 (not charged); user files untouched', async () => {
    const resetsAt = secondsAhead(2);
    world = limitedOnce(resetsAt);
    const w = world;
    const result = await w.loop('run');
    expect(result.exitCode, result.stderr).toBe(0);
    const events = result.events();
    const waited = events.find((e) => e.type === 'agent.limited');
    expect(waited).toMatchObject({
      storyId: '1',
      attempt: 1,
      kind: 'usage',
      source: 'exit 75',
      resetsAt,
    });
    expect(Number(waited?.waitMs)).toBeGreaterThanOrEqual(10_000);
    expect(types(events).slice(0, 7)).toEqual([
      'run.started',
      'story.started',
      'checkpoint.reverted',
      'agent.limited',
      'limit.resumed',
      'story.started',
      'checkpoint.created',
    ]);
    // Waited until the reset: the retry started after it (event order and the clock, not a timer).
    expect(Date.now()).toBeGreaterThan(Date.parse(resetsAt));
    expect(events.find((e) => e.type === 'story.completed')).toMatchObject({
      storyId: '1',
      attempts: 1,
    });
    expect(w.state().stories['1']).toMatchObject({ attempts: 1, completed: true });
    expect(w.state().wait ?? null).toBeNull();
    expect(w.attemptRefs()).toEqual([`refs/ralphtool/${CHANGE}/attempts/1-1`]);
    expect(w.git('show', `refs/ralphtool/${CHANGE}/attempts/1-1:src/partial.txt`)).toBe(
      'half-way\n',
    );
    expect(w.subjects(`main..${w.branch}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
    expect(w.userFilesChanged()).toEqual([]);
  }, 240_000);

  it('--on-limit stop: exit 5, outcome limited, resumable; resume then completes', async () => {
    world = limitedOnce(secondsAhead(1));
    const w = world;
    const stopped = await w.loop('run', ['--on-limit', 'stop']);
    expect(stopped.exitCode, stopped.stderr).toBe(5);
    const events = stopped.events();
    expect(index(events, 'agent.limited')).toBe(-1);
    expect(events.at(-1)).toMatchObject({
      type: 'run.finished',
      outcome: 'limited',
      choice: 'keep',
    });
    expect(w.state()).toMatchObject({ status: 'active', choice: 'keep', outcome: 'limited' });
    expect(w.state().stories['1']).toMatchObject({ attempts: 0 });
    expect(w.exists('src/partial.txt')).toBe(false);
    expect(w.userFilesChanged()).toEqual([]);

    const status = await w.statusJson();
    expect(String(status.runs[0]?.next)).toContain(
      `stopped at a usage limit: \`ralphtool resume ${CHANGE}\` once it has reset`,
    );

    const resumed = await w.loop('resume');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.events().find((e) => e.type === 'story.completed')).toMatchObject({
      storyId: '1',
      attempts: 1,
    });
    expect(w.userFilesChanged()).toEqual([]);
  }, 240_000);

  it('--max-wait shorter than the reset: exit 5 at once with limit.reached max-wait', async () => {
    world = limitedOnce(secondsAhead(3600));
    const w = world;
    const result = await w.loop('run', ['--max-wait', '10m']);
    expect(result.exitCode, result.stderr).toBe(5);
    const events = result.events();
    expect(index(events, 'agent.limited')).toBe(-1);
    expect(events.find((e) => e.type === 'limit.reached')).toMatchObject({ limit: 'max-wait' });
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'limited' });
    expect(w.state()).toMatchObject({ status: 'active', outcome: 'limited' });
    expect(w.state().wait ?? null).toBeNull();
  }, 240_000);

  it.each([
    ['Ctrl-C', 'SIGINT'],
    ['SIGTERM', 'SIGTERM'],
  ] as const)(
    '%s during a wait stops at once (exit 130), long before the reset; resume tries again at once',
    async (_name, signal) => {
      const resetsAt = secondsAhead(600);
      world = limitedOnce(resetsAt);
      const w = world;
      const live = w.spawn('run');
      await live.waitFor((e) => e.type === 'agent.limited');
      // The wait is recorded while it lasts.
      expect(w.state().wait).toMatchObject({ storyId: '1', kind: 'usage', resetsAt });
      // status, asked meanwhile, says what the live run is waiting for and until when (local time).
      const until = Date.parse(String((w.state().wait as { until: string }).until));
      const status = await w.cli(['status']);
      expect(status.stdout).toContain(`⏸ waiting for the usage limit until ${hhmm(until)} (`);
      expect(status.stdout).toContain('then story 1 again');
      expect((await w.statusJson()).runs[0]).toMatchObject({
        state: 'running',
        wait: { storyId: '1', kind: 'usage', resetsAt, source: 'exit 75' },
      });
      live.signal(signal);
      const exit = await live.exited;
      expect(exit.code, live.stderr).toBe(130);
      expect(Date.now()).toBeLessThan(Date.parse(resetsAt));
      expect(live.events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'stopped' });
      expect(live.types()).not.toContain('limit.resumed');
      expect(w.state().wait ?? null).toBeNull();
      expect(w.state().stories['1']).toMatchObject({ attempts: 0 });
      expect(w.userFilesChanged()).toEqual([]);

      // The user stopped the wait: resume does not wait again on its own, it tries.
      const resumed = await w.loop('resume');
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      expect(index(resumed.events(), 'agent.limited')).toBe(-1);
    },
    240_000,
  );

  it('kill -9 during a wait, then resume: waits again for what is left, then completes', async () => {
    const resetsAt = secondsAhead(5);
    world = limitedOnce(resetsAt);
    const w = world;
    const live = w.spawn('run');
    const first = await live.waitFor((e) => e.type === 'agent.limited');
    await live.kill9();
    const recorded = w.state().wait as { until: string } | null;
    expect(recorded).toMatchObject({ storyId: '1', resetsAt });
    const until = Date.parse(String(recorded?.until));
    const status = await w.cli(['status']);
    expect(status.stdout).toContain(
      `it was waiting for the usage limit until ${hhmm(until)}: \`resume\` waits out the rest`,
    );

    const resumed = await w.loop('resume');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const events = resumed.events();
    const again = events.find((e) => e.type === 'agent.limited');
    expect(again).toMatchObject({ storyId: '1', attempt: 1, resetsAt, source: 'exit 75' });
    // What was left of the wait, no more than the first one.
    expect(Number(again?.waitMs)).toBeLessThanOrEqual(Number(first.waitMs));
    expect(index(events, 'agent.limited')).toBeLessThan(index(events, 'story.started'));
    expect(index(events, 'limit.resumed')).toBeLessThan(index(events, 'story.started'));
    expect(Date.now()).toBeGreaterThanOrEqual(until);
    expect(events.find((e) => e.type === 'story.completed')).toMatchObject({
      storyId: '1',
      attempts: 1,
    });
    expect(w.state().wait ?? null).toBeNull();
    expect(w.userFilesChanged()).toEqual([]);
  }, 240_000);

  it('kill -9 during a wait whose end has passed by the resume: resume goes on at once', async () => {
    world = limitedOnce(secondsAhead(600));
    const w = world;
    const live = w.spawn('run');
    await live.waitFor((e) => e.type === 'agent.limited');
    await live.kill9();
    // The reset passed while ralphtool was down (the record says so, as a late resume would find).
    const state = w.state();
    const wait = state.wait as Record<string, unknown>;
    w.writeState({ ...state, wait: { ...wait, until: new Date(Date.now() - 1000).toISOString() } });

    const resumed = await w.loop('resume');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const events = resumed.events();
    expect(index(events, 'agent.limited')).toBe(-1);
    expect(events.find((e) => e.type === 'story.completed')).toMatchObject({
      storyId: '1',
      attempts: 1,
    });
    expect(w.state().wait ?? null).toBeNull();
  }, 240_000);

  it('kill -9 during a wait, then resume with a --max-wait shorter than what is left: exit 5 at once', async () => {
    world = limitedOnce(secondsAhead(600));
    const w = world;
    const live = w.spawn('run');
    await live.waitFor((e) => e.type === 'agent.limited');
    await live.kill9();
    expect(w.state().wait).toMatchObject({ storyId: '1' });

    const resumed = await w.loop('resume', ['--max-wait', '1m']);
    expect(resumed.exitCode, resumed.stderr).toBe(5);
    const events = resumed.events();
    expect(index(events, 'agent.limited')).toBe(-1);
    expect(index(events, 'story.started')).toBe(-1);
    expect(events.find((e) => e.type === 'limit.reached')).toMatchObject({ limit: 'max-wait' });
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'limited' });
    expect(w.state().wait ?? null).toBeNull();
    expect(w.userFilesChanged()).toEqual([]);
  }, 240_000);

  it('transient API errors past the cap count as a failed attempt', async () => {
    world = new FaultWorld(CHANGE, 1).scenario({
      '1-1': [
        { stderr: 'ralphtool-limit-kind: overloaded' },
        { stderr: `ralphtool-resets-at: ${secondsAhead(-60)}` },
        { exit: 75 },
      ],
      '1-2': succeed('src/one.txt', 'one\n'),
    });
    const w = world;
    const result = await w.loop('run', ['--max-retries', '1']);
    expect(result.exitCode, result.stderr).toBe(0);
    const events = result.events();
    expect(events.filter((e) => e.type === 'agent.limited')).toHaveLength(5);
    expect(events.find((e) => e.type === 'attempt.failed')).toMatchObject({
      storyId: '1',
      attempt: 1,
      kind: 'agent-error',
    });
    expect(w.state().stories['1']).toMatchObject({ attempts: 2, completed: true });
  }, 240_000);
});
