import { afterEach, describe, expect, it } from 'vitest';
import type { RunOutcome, TimedRunEvent } from '../../src/core/events.js';
import { exhaustedMessage } from '../../src/core/loop.js';
import { FakeController } from './support/fake-controller.js';
import {
  addAuth,
  at,
  change,
  story,
  storyTwoDoneStoryThreeRetrying,
  summaryOf,
} from './support/fixtures.js';
import { KEY, renderUi, type Ui } from './support/harness.js';

let ui: Ui | null = null;
afterEach(() => ui?.unmount());

async function runUntilChoice(outcome: RunOutcome, extra: TimedRunEvent[] = []) {
  const controller = new FakeController([addAuth()], (c) => summaryOf(c));
  const opened = await renderUi(controller, { columns: 80, rows: 30 });
  ui = opened;
  await opened.press(KEY.enter);
  await opened.until('Story 1: Setup');
  await opened.press('r');
  const run = controller.lastRun;
  run.emit(
    ...storyTwoDoneStoryThreeRetrying(),
    ...extra,
    at(95, { type: 'run.awaiting-choice', outcome, options: ['cleanup', 'keep'] }),
  );
  await opened.until('the run has ended');
  return { controller, run, ui: opened };
}

const finished = (outcome: RunOutcome, choice: 'cleanup' | 'keep'): TimedRunEvent =>
  at(100, {
    type: 'run.finished',
    outcome,
    choice,
    branch: 'ralph/add-auth',
    originalBranch: 'main',
    storiesCompleted: 3,
    storiesTotal: 3,
    costUsd: 0.29,
    durationMs: 100_000,
  });

describe('Completion screen', () => {
  it('says all stories are done, with counts, cost, time, both branches and both choices', async () => {
    const { ui } = await runUntilChoice('complete', [
      at(90, {
        type: 'agent.result',
        storyId: '3',
        attempt: 2,
        turns: 3,
        tokens: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0 },
        costUsd: 0.12,
        durationMs: 20_000,
        isError: false,
      }),
      at(91, {
        type: 'story.completed',
        storyId: '3',
        attempts: 2,
        costUsd: 0.17,
        durationMs: 50_000,
      }),
    ]);
    const frame = ui.frame();
    expect(frame).toContain('All 3 stories are done.');
    expect(frame).toContain('Stories 3/3 done · cost $0.29 · time 1m35s');
    expect(frame).toContain('Current branch ralph/add-auth · original branch main');
    expect(frame).toContain('› Cleanup  back to main with all the work as uncommitted changes');
    expect(frame).toContain('  Keep     stay on ralph/add-auth with one commit per story');
  });

  it('names the exhausted story and its last reason', async () => {
    const { ui } = await runUntilChoice('max-retries', [
      at(90, {
        type: 'attempt.failed',
        storyId: '3',
        attempt: 2,
        kind: 'verify-failed',
        reason: 'npm test exited 1',
      }),
      at(91, {
        type: 'story.exhausted',
        storyId: '3',
        attempts: 2,
        reason: 'verify-failed: npm test exited 1',
      }),
      at(91, {
        type: 'error',
        message: exhaustedMessage('3', 2, 'verify-failed: npm test exited 1'),
        fatal: false,
      }),
      at(92, { type: 'error', message: 'transcript could not be written', fatal: false }),
    ]);
    const frame = ui.frame();
    expect(frame).toContain(
      'Story 3 used all 2 attempts. Last reason: verify-failed: npm test exited 1',
    );
    expect(frame).toContain('Stories 2/3 done');
    // The error event that repeats the exhausted story is not shown a second time; others are.
    expect(frame).not.toContain('failed all 2 attempt(s)');
    expect(frame).toContain('warning: transcript could not be written');
  });

  it('says how to leave without choosing, and counts the q presses', async () => {
    const { ui } = await runUntilChoice('complete');
    expect(ui.frame()).toContain(
      '←/↑ Cleanup · →/↓ Keep · Enter apply · q×3 quit without choosing',
    );
    await ui.press('q');
    await ui.until('press q 2 more times within 3 s to quit at once');
  });

  it('says which budget or time limit stopped the run, and how to go on', async () => {
    const budget = await runUntilChoice('budget', [
      at(90, {
        type: 'limit.reached',
        limit: 'max-story-cost',
        message: 'story 3 spent $1.20 of --max-story-cost $1.00',
      }),
    ]);
    // Wrapped at 80 columns: the figures on the first line, the command on the next.
    expect(budget.ui.frame()).toContain(
      'The budget is spent: story 3 spent $1.20 of --max-story-cost $1.00.',
    );
    expect(budget.ui.frame()).toContain(
      'raise it: ralphtool resume add-auth --max-story-cost <more>',
    );
    budget.ui.unmount();
    const timed = await runUntilChoice('time-limit', [
      at(90, {
        type: 'limit.reached',
        limit: 'max-duration',
        message: 'ran 31m of --max-duration 30m',
      }),
    ]);
    expect(timed.ui.frame()).toContain('Stopped at --max-duration: ran 31m of --max-duration 30m.');
  });

  it('says when the user stopped the run, and when an error did', async () => {
    const stopped = await runUntilChoice('stopped');
    expect(stopped.ui.frame()).toContain('Stopped before the end: the last attempt was reverted.');
    stopped.ui.unmount();
    const failed = await runUntilChoice('error', [
      at(90, {
        type: 'error',
        message: 'claude is not logged in: run `claude /login`',
        fatal: true,
      }),
    ]);
    expect(failed.ui.frame()).toContain(
      'Stopped by an error: claude is not logged in: run `claude /login`',
    );
  });

  it('applies Cleanup (the default) with Enter and shows progress until the run finished', async () => {
    const { ui, run, controller } = await runUntilChoice('complete');
    await ui.press(KEY.enter);
    expect(await ui.until('applying cleanup…')).toContain('please wait');
    expect(run.calls).toEqual(['choose:cleanup']);
    await ui.press(KEY.enter, KEY.down);
    expect(run.calls).toEqual(['choose:cleanup']);
    controller.files = [
      { status: 'A', path: 'src/session.ts' },
      { status: 'M', path: 'package.json' },
      { status: 'D', path: 'src/old-login.ts' },
      { status: 'R', path: 'src/login/form.ts', from: 'src/form.ts' },
    ];
    controller.changes = [
      change('add-auth', [
        story('1', 'Setup', [true, true]),
        story('2', 'Login form', [true, true]),
        story('3', 'Sessions', [true]),
      ]),
    ];
    run.emit(finished('complete', 'cleanup'));
    run.end(0);
    const frame = await ui.until('src/session.ts');
    expect(frame).toContain('Cleanup done: you are on main with the work as uncommitted changes.');
    // The loop's time, as Completion showed it (1m35s), not the time spent choosing too.
    expect(frame).toContain('Stories 3/3 done · tasks 5/5 done · cost $0.29 · time 1m35s');
    expect(frame).toContain('Changed files against main (4):');
    expect(frame).toMatch(
      /A src\/session\.ts\n\s+M package\.json\n\s+D src\/old-login\.ts\n\s+R src\/form\.ts → src\/login\/form\.ts/,
    );
    expect(frame).toContain('✓ 2 Login form · 1 attempt · $0.12 · 30s');
    // The wall time of its failed attempt: started at 33 s, reverted at 62 s.
    expect(frame).toContain('· 3 Sessions · 2 attempts · $0.05 · 29s');
    expect(controller.changedFilesAsked).toEqual([
      {
        change: 'add-auth',
        branch: 'ralph/add-auth',
        originalBranch: 'main',
        baseSha: 'abc1234def5678',
        choice: 'cleanup',
      },
    ]);
    await ui.press('q');
    expect(ui.exitCode()).toBe(0);
  });

  it('applies Keep when picked with the arrows, then Esc goes back to Changes', async () => {
    const { ui, run } = await runUntilChoice('stopped');
    await ui.press(KEY.right);
    await ui.until('› Keep');
    await ui.press(KEY.enter);
    await ui.until('applying keep…');
    expect(run.calls).toEqual(['choose:keep']);
    run.emit(finished('stopped', 'keep'));
    run.end(130);
    const frame = await ui.until('Kept: you are on ralph/add-auth with one commit per story.');
    expect(frame).toContain('Changed files against main (0):');
    expect(frame).toContain('warning: verify command flaked once');
    await ui.press(KEY.escape);
    await ui.until('› add-auth');
    await ui.press('q');
    expect(ui.exitCode()).toBe(130);
  });
});
