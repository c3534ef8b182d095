import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent, RunOutcome, TimedRunEvent } from '../../src/core/events.js';
import { clockTime } from '../../src/format/clock.js';
import { changesLoaded, initialState } from '../../src/ui/state/app-state.js';
import { toUiKey } from '../../src/ui/state/key-names.js';
import { handleKey } from '../../src/ui/state/keys.js';
import { marksLoaded } from '../../src/ui/state/recorded-runs.js';
import { FakeController } from './support/fake-controller.js';
import { at, change, NO_KEY, story, summaryOf, T0 } from './support/fixtures.js';
import { KEY, renderUi, type Ui } from './support/harness.js';

/**
 * Several changes marked on the list and run together: the marks, the dashboard's rows, one
 * run's loop screen over it, stop all, the merge report, the choices per change and for all,
 * the result. The fake controller plays the engine (test/ui/support/fake-controller.ts).
 */

let ui: Ui | null = null;
afterEach(() => ui?.unmount());

const two = (name: string, done = false) =>
  change(name, [story('1', `First of ${name}`, [done]), story('2', `Second of ${name}`, [done])]);

function controllerOf() {
  return new FakeController([two('alpha'), two('beta'), two('done-one', true), two('gamma')], (c) =>
    summaryOf(c),
  );
}

const startedOf = (name: string): RunEvent => ({
  type: 'run.started',
  change: name,
  branch: `ralph/${name}`,
  originalBranch: 'main',
  baseSha: 'abc1234def5678',
  agent: 'claude',
  maxRetries: 2,
  worktree: `/repo.ralph/${name}`,
  stories: [
    { id: '1', title: `First of ${name}`, done: false },
    { id: '2', title: `Second of ${name}`, done: false },
  ],
});

const storyStarted = (storyId: string, attempt: number): RunEvent => ({
  type: 'story.started',
  storyId,
  title: `story ${storyId}`,
  index: Number(storyId),
  total: 2,
  completed: Number(storyId) - 1,
  attempt,
});

const completed = (storyId: string, costUsd: number): RunEvent[] => [
  {
    type: 'agent.result',
    storyId,
    attempt: 1,
    turns: 3,
    tokens: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
    costUsd,
    durationMs: 1000,
    isError: false,
  },
  { type: 'story.completed', storyId, attempts: 1, costUsd, durationMs: 1000 },
];

const awaiting = (outcome: RunOutcome = 'complete'): RunEvent => ({
  type: 'run.awaiting-choice',
  outcome,
  options: ['cleanup', 'keep'],
});

const finished = (name: string, choice: 'cleanup' | 'keep' | null): RunEvent => ({
  type: 'run.finished',
  outcome: 'complete',
  choice,
  branch: `ralph/${name}`,
  originalBranch: 'main',
  storiesCompleted: 2,
  storiesTotal: 2,
  costUsd: 0.2,
  durationMs: 5000,
});

const timed = (seconds: number, ...events: RunEvent[]): TimedRunEvent[] =>
  events.map((e) => at(seconds, e));

/** The list, alpha and gamma marked (Space on each), started with s. */
async function startTwo(options: { columns?: number; rows?: number } = {}) {
  const controller = controllerOf();
  const opened = await renderUi(controller, { columns: 100, rows: 30, ...options });
  ui = opened;
  await opened.until('gamma');
  await opened.press(' ', KEY.down, KEY.down, KEY.down, ' ');
  await opened.until('s start 2 marked');
  await opened.press('s');
  await opened.until('2 runs');
  return { controller, ui: opened, many: controller.lastMany };
}

describe('Marking changes on the list', () => {
  it('Space toggles a mark on the row, a marks every change with stories left, s starts them in list order', async () => {
    const controller = controllerOf();
    ui = await renderUi(controller, { columns: 100, rows: 30 });
    const frame = await ui.until('gamma');
    // Nothing marked: the list is as it always was, the keys say how to mark.
    expect(frame).not.toContain('◉');
    expect(frame).toContain('q quit · Space mark · a mark all with stories left');

    await ui.press(KEY.down, ' ');
    let marked = await ui.until('s start 1 marked, each in its own worktree');
    expect(marked).toMatch(/◉ beta/);
    expect(marked).toMatch(/○ alpha/);
    await ui.press(' ');
    marked = await ui.until('a mark all with stories left');
    expect(marked).not.toContain('◉');

    // a: every change with stories left (done-one has none); pressed again, none.
    await ui.press('a');
    marked = await ui.until('s start 3 marked');
    expect(marked).toMatch(/◉ alpha/);
    expect(marked).toMatch(/◉ beta/);
    expect(marked).toMatch(/○ done-one/);
    expect(marked).toMatch(/◉ gamma/);
    await ui.press('a');
    await ui.until('a mark all with stories left');
    await ui.press('a');
    await ui.until('s start 3 marked');

    await ui.press('s');
    await ui.until('3 runs');
    expect(controller.manyRuns).toHaveLength(1);
    expect(controller.lastMany.changes).toEqual(['alpha', 'beta', 'gamma']);
    // Never the single-run path.
    expect(controller.runs).toHaveLength(0);
  });

  it('s with nothing marked does nothing, and Enter on one change still opens it as before', async () => {
    const controller = controllerOf();
    ui = await renderUi(controller, { columns: 100, rows: 30 });
    await ui.until('gamma');
    await ui.press('s');
    expect(controller.manyRuns).toHaveLength(0);
    await ui.press(KEY.enter);
    await ui.until('Story 1: First of alpha');
    expect(controller.manyRuns).toHaveLength(0);
  });
});

describe('The dashboard', () => {
  it('shows one row per change: queued, running with story, attempt, cost, time and the agent’s last line, waiting, awaiting', async () => {
    const { ui, many } = await startTwo();
    let frame = await ui.until((f) => /alpha\s+queued/.test(f) && /gamma\s+queued/.test(f));
    expect(frame).toContain('each in its own worktree');

    many.emit(
      'alpha',
      ...timed(0, startedOf('alpha'), storyStarted('1', 1)),
      ...timed(1, ...completed('1', 0.25)),
      ...timed(2, storyStarted('2', 2)),
      // Escape codes and several lines: one clean line on the row.
      at(3, {
        type: 'agent.message',
        storyId: '2',
        attempt: 2,
        text: 'Reading the code\nWriting the \u001b[31mlogin\u001b[0m form',
      }),
    );
    frame = await ui.until('Writing the login form');
    expect(frame).not.toContain('Reading the code');
    const alpha = frame.split('\n').find((l) => l.includes('alpha')) ?? '';
    expect(alpha).toMatch(/running\s+1\/2\s+2\s+\$0\.25/);
    expect(alpha).not.toContain('\u001b');

    many.emit(
      'gamma',
      ...timed(0, startedOf('gamma'), storyStarted('1', 1)),
      at(5, {
        type: 'agent.limited',
        storyId: '1',
        attempt: 1,
        kind: 'usage',
        source: 'exit 75',
        resetsAt: new Date(Date.parse(at(5, awaiting()).ts) + 600_000).toISOString(),
        waitMs: 600_000,
        message: 'usage limit reached',
      }),
    );
    await ui.until((f) => /gamma\s+waiting for a limit/.test(f));

    many.emit('alpha', ...timed(9, ...completed('2', 0.1), awaiting()));
    frame = await ui.until((f) => /alpha\s+complete: choose c\/k/.test(f));
    expect(frame).toContain('c/k cleanup/keep this one · C/K all');
  });

  it('shows the account’s window as the usage governor knows it, read again when a run meets a limit, and who waits until when', async () => {
    const controller = controllerOf();
    const reset = new Date(T0 + 3_600_000).toISOString();
    controller.accountWindows = [
      {
        key: 'claude-3f9a0c12be47',
        usage: {
          percent: 83,
          resetsAt: reset,
          window: 'five_hour',
          seenAt: new Date(T0).toISOString(),
        },
        limit: null,
      },
    ];
    ui = await renderUi(controller, { columns: 160, rows: 30 });
    await ui.until('gamma');
    await ui.press(' ', KEY.down, KEY.down, KEY.down, ' ', 's');
    const resetAt = clockTime(Date.parse(reset), T0);
    // Read once the runs start: utilisation and reset, as `status` says it.
    let frame = await ui.until(
      `account claude-3f9a0c12be47: 83% of the five_hour window used, resets ${resetAt}`,
    );
    expect(frame).not.toContain('limited until');
    expect(frame).not.toContain('waiting for a limit');

    // Another process's run hits the limit (the file says so); gamma meets it and waits.
    const until = T0 + 600_000;
    controller.accountWindows = [
      {
        key: 'claude-3f9a0c12be47',
        usage: {
          percent: 100,
          resetsAt: reset,
          window: 'five_hour',
          seenAt: new Date(T0).toISOString(),
        },
        limit: {
          until: new Date(until).toISOString(),
          change: 'elsewhere',
          pid: 4242,
          host: 'here',
          message: 'usage limit reached',
        },
      },
    ];
    const reads = controller.accountReads;
    controller.lastMany.emit(
      'gamma',
      ...timed(0, startedOf('gamma'), storyStarted('1', 1)),
      at(0, {
        type: 'agent.limited',
        storyId: '1',
        attempt: 1,
        kind: 'usage',
        source: 'account',
        resetsAt: new Date(until).toISOString(),
        waitMs: 600_000,
        message: 'the run of elsewhere (pid 4242) on the same account hit this limit',
      }),
    );
    frame = await ui.until(
      `limited until ${clockTime(until, T0)} by the run of elsewhere (pid 4242)`,
    );
    expect(controller.accountReads).toBeGreaterThan(reads);
    expect(frame).toContain('100% of the five_hour window used');
    expect(frame).toContain(`waiting for a limit: gamma until ${clockTime(until, T0)}`);
    expect(frame).toMatch(/gamma\s+waiting for a limit/);

    // Its wait over, gamma is no longer named as waiting.
    controller.lastMany.emit(
      'gamma',
      at(600, { type: 'limit.resumed', storyId: '1', waitedMs: 600_000 }),
    );
    await ui.until((f) => !f.includes('waiting for a limit: gamma') && /gamma\s+running/.test(f));
  });

  it('cuts the agent’s line to the terminal’s width', async () => {
    const { ui, many } = await startTwo({ columns: 80 });
    many.emit(
      'alpha',
      ...timed(0, startedOf('alpha'), storyStarted('1', 1)),
      at(1, {
        type: 'agent.message',
        storyId: '1',
        attempt: 1,
        text: `start ${'x'.repeat(200)} end`,
      }),
    );
    const frame = await ui.until('start xxx');
    const alpha = frame.split('\n').find((l) => l.includes('alpha')) ?? '';
    expect(alpha).not.toContain(' end');
    expect(alpha.length).toBeLessThanOrEqual(80);
  });

  it('Enter opens the selected run’s loop screen, fed by its events only; Esc goes back', async () => {
    const { ui, many } = await startTwo();
    many.emit('alpha', ...timed(0, startedOf('alpha'), storyStarted('1', 1)));
    many.emit('gamma', ...timed(0, startedOf('gamma'), storyStarted('1', 1)));
    many.emit(
      'alpha',
      at(1, { type: 'agent.message', storyId: '1', attempt: 1, text: 'alpha at work' }),
    );
    many.emit(
      'gamma',
      at(1, { type: 'agent.message', storyId: '1', attempt: 1, text: 'gamma at work' }),
    );
    await ui.until('gamma at work');

    await ui.press(KEY.down, KEY.enter);
    let frame = await ui.until('ralphtool › gamma');
    expect(frame).toContain('Esc dashboard · q stop all');
    await ui.press(KEY.tab);
    frame = await ui.until('gamma at work');
    expect(frame).not.toContain('alpha at work');
    // Its own view goes on while it is open.
    many.emit(
      'gamma',
      at(2, { type: 'agent.message', storyId: '1', attempt: 1, text: 'gamma later' }),
    );
    await ui.until('gamma later');

    await ui.press(KEY.escape);
    frame = await ui.until('2 runs');
    expect(frame).toMatch(/› gamma/);
    // Back to alpha: its view kept its own tab (info), unchanged by what gamma's did.
    await ui.press(KEY.up, KEY.enter);
    frame = await ui.until('ralphtool › alpha');
    expect(frame).toContain('Story 1');
  });

  it('a run’s Info tab shows its tasks as read in its own worktree, again after each attempt', async () => {
    const { controller, ui, many } = await startTwo();
    many.emit('alpha', ...timed(0, startedOf('alpha'), storyStarted('1', 1)));
    await ui.press(KEY.enter);
    const frame = await ui.until('Tasks 0/1:');
    expect(frame).not.toContain('not read yet');
    expect(controller.roots).toEqual(['/repo.ralph/alpha']);
    many.emit('alpha', ...timed(1, ...completed('1', 0.1)));
    await ui.until(() => controller.roots.length === 2);
    expect(controller.roots).toEqual(['/repo.ralph/alpha', '/repo.ralph/alpha']);
  });

  it('q stops every run once, from the dashboard or a run’s screen; three quick presses quit at once', async () => {
    const { ui, many } = await startTwo();
    many.emit('alpha', ...timed(0, startedOf('alpha'), storyStarted('1', 1)));
    await ui.press(KEY.enter);
    await ui.until('ralphtool › alpha');
    await ui.press('q');
    await ui.until('stopping every run');
    expect(many.calls).toEqual(['stop']);
    await ui.press(KEY.escape);
    await ui.until('2 runs');
    ui.clock.now += 10_000;
    await ui.press('q');
    expect(many.calls).toEqual(['stop']);
    await ui.press('q', 'q');
    expect(many.calls).toEqual(['stop', 'force-quit']);
    expect(ui.exitCode()).toBe(130);
  });

  it('after the merge check: the report, c/k on a row, C/K for all the others (and those asking later)', async () => {
    const { ui, many } = await startTwo();
    for (const name of ['alpha', 'gamma']) {
      many.emit(name, ...timed(0, startedOf(name), storyStarted('1', 1)));
    }
    many.emit('alpha', ...timed(5, ...completed('1', 0.1), awaiting()));
    many.hooks.mergeChecked({
      against: 'main',
      checked: ['alpha', 'gamma'],
      conflicts: [{ a: 'alpha', b: 'gamma', files: ['src/app.ts'] }],
      order: null,
    });
    const frame = await ui.until('conflict: alpha × gamma in src/app.ts');
    expect(frame).toContain('No order applies every branch cleanly');

    // c on alpha (selected): that run alone; c again changes nothing.
    await ui.press('c');
    await ui.until((f) => /alpha\s+complete: cleanup…/.test(f));
    await ui.press('k');
    expect(many.calls).toEqual(['choose:alpha:cleanup']);

    // K: every run not answered yet, gamma included although it has not asked yet.
    await ui.press('K');
    expect(many.calls).toEqual(['choose:alpha:cleanup', 'choose-all:keep']);
    many.emit('gamma', ...timed(6, ...completed('1', 0.1), awaiting()));
    await ui.until((f) => /gamma\s+complete: keep…/.test(f));
  });

  it('a clean order is named', async () => {
    const { ui, many } = await startTwo();
    many.hooks.mergeChecked({
      against: 'main',
      checked: ['alpha', 'gamma'],
      conflicts: [],
      order: ['gamma', 'alpha'],
    });
    const frame = await ui.until('Clean order: gamma → alpha');
    expect(frame).toContain('the 2 branches apply cleanly onto main');
  });

  it('the result lists each change’s outcome and what was done; Esc goes back to the list', async () => {
    const { controller, ui, many } = await startTwo();
    many.emit('alpha', ...timed(0, startedOf('alpha'), awaiting(), finished('alpha', 'keep')));
    many.emit('gamma', ...timed(0, startedOf('gamma'), awaiting(), finished('gamma', 'cleanup')));
    many.hooks.notice(null, 'usage limit: every run waits until 15:02');
    many.end(0, [
      { change: 'alpha', exitCode: 0, error: null },
      { change: 'gamma', exitCode: 0, error: null },
    ]);
    const frame = await ui.until('2 runs › result');
    expect(frame).toMatch(/alpha\s+done: complete\s+2\/2 stories · kept on ralph\/alpha/);
    expect(frame).toMatch(
      /gamma\s+done: complete\s+2\/2 stories · cleanup: the work is on main, uncommitted/,
    );
    expect(frame).toContain('usage limit: every run waits until 15:02');
    await ui.press(KEY.escape);
    await ui.until('a mark all with stories left');
    expect(controller.manyRuns).toHaveLength(1);
  });

  it('a run that could not start says why on its row and in the result', async () => {
    const { ui, many } = await startTwo();
    many.emit('alpha', ...timed(0, startedOf('alpha'), awaiting(), finished('alpha', 'keep')));
    many.end(1, [
      { change: 'alpha', exitCode: 0, error: null },
      { change: 'gamma', exitCode: 1, error: 'ralph/gamma already exists\nwith no record' },
    ]);
    const frame = await ui.until('2 runs › result');
    expect(frame).toMatch(/gamma\s+failed\s+ralph\/gamma already exists with no record/);
    await ui.press('q');
    expect(ui.exitCode()).toBe(1);
  });
});

describe('C and K', () => {
  it('apply to all on the dashboard only: on the change list they are c and k, as before', () => {
    const ctx = { now: 0, pane: { total: 10, viewport: 10 } };
    let state = changesLoaded(initialState(100).state, {
      status: 'ready',
      value: [summaryOf(two('alpha'))],
    });
    state = marksLoaded(state, { alpha: 'interrupted' });
    const first = handleKey(state, toUiKey('C', NO_KEY) ?? 'escape', ctx);
    const second = handleKey(first.state, toUiKey('C', NO_KEY) ?? 'escape', ctx);
    expect(second.effects).toEqual([{ type: 'finish-run', change: 'alpha', choice: 'cleanup' }]);
    expect(toUiKey('K', NO_KEY)).toBe('K');
    expect(toUiKey('k', NO_KEY)).toBe('k');
  });
});
