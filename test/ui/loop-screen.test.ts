import { afterEach, describe, expect, it } from 'vitest';
import type { TimedRunEvent } from '../../src/core/events.js';
import { FakeController } from './support/fake-controller.js';
import {
  addAuth,
  at,
  change,
  story,
  storyStarted,
  storyTwoDoneStoryThreeRetrying,
  summaryOf,
  T0,
} from './support/fixtures.js';
import { KEY, renderUi, type Ui } from './support/harness.js';

let ui: Ui | null = null;
afterEach(() => ui?.unmount());

async function startRun(options: { maxTranscriptLines?: number; rows?: number } = {}) {
  const controller = new FakeController([addAuth()], (c) => summaryOf(c));
  const opened = await renderUi(controller, { columns: 80, rows: options.rows ?? 30, ...options });
  ui = opened;
  await opened.press(KEY.enter);
  await opened.until('Story 1: Setup');
  await opened.press('r');
  await opened.until('starting the run');
  return { controller, ui: opened, run: controller.lastRun };
}

const lines = (from: number, to: number, storyId = '3', attempt = 2): TimedRunEvent[] =>
  Array.from({ length: to - from }, (_, i) =>
    at(70, { type: 'agent.message', storyId, attempt, text: `output line ${from + i}` }),
  );

describe('Loop screen', () => {
  it('shows progress, the story strip, attempts with reasons and errors as events arrive', async () => {
    const { ui, run, controller } = await startRun();
    expect(run.change).toBe('add-auth');
    // The change on disk after story 2 was accepted: its tasks are ticked.
    controller.changes = [
      change('add-auth', [
        story('1', 'Setup', [true, true]),
        story('2', 'Login form', [true, true]),
        story('3', 'Sessions', [false]),
      ]),
    ];
    ui.clock.now = T0 + 70_000;
    run.emit(...storyTwoDoneStoryThreeRetrying());
    const frame = await ui.until('attempt 2 of 3');
    expect(frame).toContain('add-auth  ███████░░░ 2/3 stories · 1m10s · $0.17');
    expect(frame).toMatch(/✓1\s+✓2\s+\[▸3 2\/3\]/);
    expect(frame).toContain('Story 3 · running · attempt 2 of 3 · Sessions');
    expect(frame).toContain(
      '#1 ✗ failed-signal: no session store configured · 7 turns · $0.05 · 30s',
    );
    expect(frame).toContain('#2 running…');
    // Its time: the failed attempt (33 s → reverted at 62 s) and the running one (63 s → 70 s).
    expect(frame).toContain('2 attempts · $0.05 · 36s');
    expect(frame).toContain('warning: verify command flaked once');
    // ← picks story 2: its tasks were re-read after its attempt.
    await ui.press(KEY.left);
    const two = await ui.until('Story 2 · done · attempt 1 of 3 · Login form');
    expect(two).toContain('[x] 2.2 Task 2.2 of Login form');
    expect(two).toContain('#1 ✓ accepted · 7 turns · $0.12 · 30s');
  });

  it('shows the agent transcript with each attempt labelled and its result line', async () => {
    const { ui, run } = await startRun();
    run.emit(...storyTwoDoneStoryThreeRetrying());
    await ui.until('attempt 2 of 3');
    await ui.press(KEY.tab);
    const frame = await ui.until('[ Agent ]');
    const shown = frame.split('\n');
    const first = shown.findIndex((l) => l.startsWith('── attempt 1 of 3 ──'));
    const second = shown.findIndex((l) => l.startsWith('── attempt 2 of 3 ──'));
    expect(first).toBeGreaterThan(0);
    expect(second).toBeGreaterThan(first);
    expect(shown.slice(first, second).join('\n')).toContain('The session store is missing.');
    expect(frame).toContain('= 7 turns · 1500 in / 200 out tokens · $0.05 · 30s');
    expect(frame).toContain('✗ attempt 1 failed (failed-signal): no session store configured');
    expect(shown[second + 1]).toBe('Trying with an in-memory store.');
    await ui.press(KEY.left);
    const two = await ui.until('Reading the login form code.');
    expect(two).toContain('· Edit src/login.ts');
  });

  it('follows new agent output until scrolled up, and again once back at the bottom', async () => {
    const { ui, run } = await startRun();
    run.emit(...storyTwoDoneStoryThreeRetrying(), ...lines(0, 60));
    await ui.press(KEY.tab);
    await ui.until('output line 59');
    run.emit(...lines(60, 70));
    await ui.until('output line 69');
    await ui.press(KEY.up, KEY.up);
    const up = await ui.until('scrolled up');
    expect(up).not.toContain('output line 69');
    expect(up).toContain('output line 67');
    run.emit(...lines(70, 80));
    // The view stays put while output arrives.
    await ui.until((f) => f.includes('output line 67') && !f.includes('output line 69'));
    await ui.press(KEY.down, KEY.down);
    // Back at the old bottom is not the end any more: still scrolled.
    await ui.until('output line 69');
    await ui.press(KEY.end);
    const bottom = await ui.until('output line 79');
    expect(bottom).not.toContain('scrolled up');
    run.emit(...lines(80, 90));
    await ui.until('output line 89');
  });

  it('keeps the view bounded and says where the full transcript is', async () => {
    const { ui, run } = await startRun({ maxTranscriptLines: 20 });
    run.emit(...storyTwoDoneStoryThreeRetrying(), ...lines(0, 50));
    await ui.press(KEY.tab);
    await ui.until('output line 49');
    await ui.press(KEY.pageUp, KEY.pageUp, KEY.pageUp);
    const top = await ui.until('earlier lines not shown');
    // Story 3 had 7 lines before the 50 new ones: 57 - 20 were dropped.
    expect(top).toContain('… 37 earlier lines not shown; the full transcript is in');
    expect(top).toContain('/repo/.git/ralphtool/add-auth/transcripts');
    expect(top).not.toContain('output line 29');
    expect(top).toContain('output line 30');
  });

  it('stays on the same text while scrolled up, even as old lines are dropped', async () => {
    const { ui, run } = await startRun({ maxTranscriptLines: 60 });
    run.emit(...storyTwoDoneStoryThreeRetrying(), ...lines(0, 40));
    await ui.press(KEY.tab);
    await ui.until('output line 39');
    await ui.press(KEY.pageUp);
    const before = await ui.until('scrolled up');
    const firstShown = before.split('\n').find((l) => l.startsWith('output line'));
    expect(firstShown).toBeDefined();
    run.emit(...lines(40, 60));
    // 7 + 60 lines: the 7 before the output are dropped, the line on screen is not.
    await ui.until('… 7 earlier lines');
    const after = ui.frame();
    expect(after.split('\n').find((l) => l.startsWith('output line'))).toBe(firstShown);
  });

  it('draws at a bounded rate under a flood of output', async () => {
    const { ui, run } = await startRun();
    run.emit(...storyTwoDoneStoryThreeRetrying());
    await ui.press(KEY.tab);
    await ui.until('in-memory store');
    const framesBefore = ui.frameCount();
    run.emit(...lines(0, 5000));
    await ui.until('output line 4999');
    expect(ui.frameCount() - framesBefore).toBeLessThan(10);
  });

  it('never lets escape sequences from the agent reach the terminal', async () => {
    const { ui, run } = await startRun();
    run.emit(
      at(0, { ...storyTwoDoneStoryThreeRetrying()[0]! }),
      at(1, storyStarted('2', 1)),
      at(2, {
        type: 'agent.message',
        storyId: '2',
        attempt: 1,
        text: 'before\u001B[2J\u001B[H\u001B]0;owned\u0007\u001B[?1049l after\u0008\u0008',
      }),
      at(3, {
        type: 'agent.tool',
        storyId: '2',
        attempt: 1,
        name: 'Bash',
        summary: 'echo \u001B[31mred',
      }),
      at(4, { type: 'error', message: 'agent said \u001B[1A\u001B[Kgoodbye', fatal: false }),
    );
    await ui.press(KEY.tab);
    const frame = await ui.until('before after');
    expect(frame).toContain('· Bash echo red');
    expect(frame).toContain('warning: agent said goodbye');
    const raw = ui.allOutput();
    for (const bad of [
      '\u001B[2J',
      '\u001B[H',
      '\u001B]0;',
      '\u0007',
      '\u001B[?1049l',
      '\u001B[1A',
      '\u001B[K',
      '\u0008',
    ]) {
      expect(raw).not.toContain(bad);
    }
  });

  it('asks the loop to stop on q and shows that stopping is under way', async () => {
    const { ui, run } = await startRun();
    run.emit(...storyTwoDoneStoryThreeRetrying());
    await ui.until('#2 running');
    await ui.press('q');
    const frame = await ui.until('stopping…');
    expect(frame).toContain('the agent is being stopped and its partial work reverted');
    expect(frame).toContain('press q 2 more times within 3 s to quit at once');
    expect(run.calls).toEqual(['stop']);
    expect(ui.exitCode()).toBeNull();
  });

  it('treats Ctrl-C like q, and quits at once on the third press within 3 s', async () => {
    const { ui, run } = await startRun();
    run.emit(...storyTwoDoneStoryThreeRetrying());
    await ui.until('#2 running');
    await ui.press(KEY.ctrlC);
    await ui.until('stopping…');
    ui.clock.now += 1000;
    await ui.press('q');
    await ui.until('press q 1 more time');
    ui.clock.now += 1000;
    await ui.press(KEY.ctrlC);
    expect(run.calls).toEqual(['stop', 'force-quit']);
    expect(ui.exitCode()).toBe(130);
  });

  it('does not force quit when the presses are more than 3 s apart', async () => {
    const { ui, run } = await startRun();
    run.emit(...storyTwoDoneStoryThreeRetrying());
    await ui.until('#2 running');
    for (let i = 0; i < 4; i += 1) {
      await ui.press('q');
      ui.clock.now += 2000;
    }
    await ui.until('stopping…');
    expect(run.calls).toEqual(['stop']);
    expect(ui.exitCode()).toBeNull();
  });

  it('shows a run that ended without finishing, with its errors, and leaves with its exit code', async () => {
    const { ui, run } = await startRun();
    run.emit(
      at(0, {
        type: 'error',
        message: 'a run of add-auth is recorded: use resume or finish',
        fatal: true,
      }),
    );
    run.end(2);
    const frame = await ui.until('The run ended (exit 2)');
    expect(frame).toContain('error: a run of add-auth is recorded: use resume or finish');
    expect(frame).toContain('the run did not start');
    await ui.press('q');
    expect(ui.exitCode()).toBe(2);
  });

  it('shows the loop crashing as an error', async () => {
    const { ui, run } = await startRun();
    run.emit(...storyTwoDoneStoryThreeRetrying());
    run.crash('state.json could not be written: disk full');
    const frame = await ui.until('The run ended (exit 1)');
    expect(frame).toContain('error: state.json could not be written: disk full');
    await ui.press(KEY.escape);
    await ui.until('› add-auth');
  });
});
