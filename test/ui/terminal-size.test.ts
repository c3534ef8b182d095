import { afterEach, describe, expect, it } from 'vitest';
import type { TimedRunEvent } from '../../src/core/events.js';
import { FakeController } from './support/fake-controller.js';
import { at, change, story, summaryOf } from './support/fixtures.js';
import { KEY, renderUi, type Ui } from './support/harness.js';

let ui: Ui | null = null;
afterEach(() => ui?.unmount());

const LONG = 'a-very-long-change-name-that-goes-on-and-on-well-past-sixty-columns';

function bigChange() {
  return change(
    LONG,
    Array.from({ length: 30 }, (_, i) =>
      story(String(i + 1), `A story whose title is long enough to need clipping ${i + 1}`, [
        i < 3,
        false,
      ]),
    ),
    4,
  );
}

function runEvents(): TimedRunEvent[] {
  const c = bigChange();
  return [
    at(0, {
      type: 'run.started',
      change: LONG,
      branch: `ralph/${LONG}`,
      originalBranch: 'main',
      baseSha: 'abc',
      agent: 'claude',
      maxRetries: 3,
      stories: c.stories.map((s) => ({ id: s.id, title: s.title, done: s.done })),
    }),
    at(1, {
      type: 'story.started',
      storyId: '4',
      title: 'x',
      index: 4,
      total: 30,
      completed: 3,
      attempt: 1,
    }),
    at(2, {
      type: 'agent.message',
      storyId: '4',
      attempt: 1,
      text: `${'word '.repeat(60)}\n${'x'.repeat(300)}\n\ttabbed\tline`,
    }),
    at(3, { type: 'agent.tool', storyId: '4', attempt: 1, name: 'Bash', summary: 'y'.repeat(200) }),
    at(4, { type: 'error', message: `something long went wrong ${'z'.repeat(200)}`, fatal: false }),
  ];
}

function expectFits(frame: string, columns: number, rows: number): void {
  const lines = frame.split('\n');
  expect(lines.length).toBeLessThanOrEqual(rows - 1);
  for (const line of lines) expect([...line].length).toBeLessThanOrEqual(columns);
}

describe('terminal size', () => {
  it('lays out every screen within 60×20, clipping instead of wrapping the frame', async () => {
    const controller = new FakeController([bigChange()], (c) => summaryOf(c));
    ui = await renderUi(controller, { columns: 60, rows: 20 });
    expectFits(await ui.until('› a-very-long'), 60, 20);
    await ui.press(KEY.enter);
    expectFits(await ui.until('Story 1: A story'), 60, 20);
    await ui.press(KEY.tab);
    expectFits(await ui.until('[ Scenarios ]'), 60, 20);
    await ui.press('r');
    controller.lastRun.emit(...runEvents());
    const info = await ui.until('attempt 1 of 4');
    expectFits(info, 60, 20);
    // Thirty stories do not fit on one line: the strip shows a window around the selection.
    expect(info).toMatch(/[‹ ].*\[▸4 1\/4\].*›/);
    await ui.press(KEY.tab);
    expectFits(await ui.until('tabbed  line'), 60, 20);
    for (let i = 0; i < 12; i += 1) await ui.press(KEY.right);
    const far = await ui.until('[·16]');
    expect(far).toContain('‹');
    controller.lastRun.emit(
      at(9, { type: 'run.awaiting-choice', outcome: 'stopped', options: ['cleanup', 'keep'] }),
    );
    expectFits(await ui.until('Cleanup'), 60, 20);
    await ui.press(KEY.enter);
    controller.lastRun.emit(
      at(10, {
        type: 'run.finished',
        outcome: 'stopped',
        choice: 'cleanup',
        branch: `ralph/${LONG}`,
        originalBranch: 'main',
        storiesCompleted: 3,
        storiesTotal: 30,
        costUsd: 0,
        durationMs: 10_000,
      }),
    );
    expectFits(await ui.until('Cleanup done'), 60, 20);
  });

  it('says "terminal too small" below 60×20 and comes back when it grows', async () => {
    const controller = new FakeController([bigChange()], (c) => summaryOf(c));
    ui = await renderUi(controller, { columns: 60, rows: 20 });
    await ui.until('› a-very-long');
    for (const [columns, rows] of [
      [50, 15],
      [59, 20],
      [60, 19],
    ] as const) {
      await ui.resize(columns, rows);
      const frame = await ui.until('terminal too small');
      expect(frame.trim()).toBe('terminal too small (need 60×20)');
    }
    await ui.resize(60, 20);
    expectFits(await ui.until('› a-very-long'), 60, 20);
  });

  it('still handles keys while too small: Ctrl-C asks the run to stop', async () => {
    const controller = new FakeController([bigChange()], (c) => summaryOf(c));
    ui = await renderUi(controller, { columns: 60, rows: 20 });
    await ui.press(KEY.enter);
    await ui.until('Story 1: A story');
    await ui.press('r');
    controller.lastRun.emit(...runEvents());
    await ui.until('attempt 1 of 4');
    await ui.resize(50, 15);
    await ui.until('terminal too small');
    await ui.press(KEY.ctrlC);
    expect(controller.lastRun.calls).toEqual(['stop']);
    await ui.resize(80, 24);
    await ui.until('stopping…');
  });

  it('ignores every other key while too small: Enter cannot apply a choice nobody sees', async () => {
    const controller = new FakeController([bigChange()], (c) => summaryOf(c));
    ui = await renderUi(controller, { columns: 60, rows: 20 });
    await ui.press(KEY.enter);
    await ui.until('Story 1: A story');
    await ui.press('r');
    controller.lastRun.emit(
      ...runEvents(),
      at(9, { type: 'run.awaiting-choice', outcome: 'stopped', options: ['cleanup', 'keep'] }),
    );
    await ui.until('Cleanup');
    await ui.resize(50, 15);
    await ui.until('terminal too small');
    await ui.press(KEY.down);
    await ui.press(KEY.enter);
    expect(controller.lastRun.calls).toEqual([]);
    await ui.resize(60, 20);
    const frame = await ui.until('Cleanup');
    expect(frame).toContain('› Cleanup');
  });
});
