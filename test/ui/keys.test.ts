import { describe, expect, it } from 'vitest';
import {
  changeOpened,
  changesLoaded,
  initialState,
  runEnded,
  runEventsArrived,
  type Transition,
  type UiState,
} from '../../src/ui/state/app-state.js';
import type { UiKey } from '../../src/ui/state/key-names.js';
import { handleKey } from '../../src/ui/state/keys.js';
import { addAuth, at, storyTwoDoneStoryThreeRetrying, summaryOf, T0 } from './support/fixtures.js';

const pane = { total: 50, viewport: 10 };

function press(state: UiState, key: UiKey, now = T0): Transition {
  return handleKey(state, key, { now, pane });
}

function atLoop(): UiState {
  let s = initialState(2000).state;
  s = changesLoaded(s, { status: 'ready', value: [summaryOf(addAuth())] });
  s = press(s, 'enter').state;
  s = changeOpened(s, 'add-auth', { status: 'ready', value: addAuth() });
  return press(s, 'r').state;
}

describe('navigation between the screens', () => {
  it('starts on Changes and loads them', () => {
    const t = initialState(2000);
    expect(t.state.screen).toBe('changes');
    expect(t.effects).toEqual([{ type: 'load-changes' }]);
  });

  it('opens a change, runs it, and goes back with Esc', () => {
    let s = changesLoaded(initialState(2000).state, {
      status: 'ready',
      value: [summaryOf(addAuth())],
    });
    const open = press(s, 'enter');
    expect(open.state.screen).toBe('preview');
    expect(open.effects).toEqual([{ type: 'open-change', name: 'add-auth' }]);
    // `r` does nothing until the change is loaded.
    expect(press(open.state, 'r').effects).toEqual([]);
    s = changeOpened(open.state, 'add-auth', { status: 'ready', value: addAuth() });
    expect(press(s, 'tab').state.preview?.tab).toBe('scenarios');
    expect(press(press(s, 'tab').state, 'shift-tab').state.preview?.tab).toBe('tasks');
    const back = press(s, 'escape');
    expect(back.state.screen).toBe('changes');
    expect(back.effects).toEqual([{ type: 'load-changes' }]);
    const run = press(s, 'r');
    expect(run.state.screen).toBe('loop');
    expect(run.effects).toEqual([{ type: 'start-run', change: 'add-auth' }]);
  });

  it('quits from Changes with 0 and ignores Enter on an empty list', () => {
    const s = changesLoaded(initialState(2000).state, { status: 'ready', value: [] });
    expect(press(s, 'enter').state.screen).toBe('changes');
    expect(press(s, 'q').effects).toEqual([{ type: 'exit', code: 0 }]);
    expect(press(s, 'ctrl-c').effects).toEqual([{ type: 'exit', code: 0 }]);
  });

  it('moves the completion choice with the arrows without wrapping at either end', () => {
    const s = runEventsArrived(runEventsArrived(atLoop(), storyTwoDoneStoryThreeRetrying()).state, [
      at(70, { type: 'run.awaiting-choice', outcome: 'complete', options: ['cleanup', 'keep'] }),
    ]).state;
    const choice = (state: UiState, ...keys: UiKey[]): string | undefined =>
      keys.reduce((st, key) => press(st, key).state, state).run?.completionChoice;
    // Cleanup is first: ← and ↑ on it stay on it; Keep is last: → and ↓ on it stay on it.
    expect(choice(s, 'left')).toBe('cleanup');
    expect(choice(s, 'up')).toBe('cleanup');
    expect(choice(s, 'right', 'right')).toBe('keep');
    expect(choice(s, 'down', 'down')).toBe('keep');
    expect(choice(s, 'right', 'down')).toBe('keep');
    expect(choice(s, 'down', 'left')).toBe('cleanup');
    expect(choice(s, 'right', 'up')).toBe('cleanup');
  });

  it('goes to Completion on run.awaiting-choice and to Result on run.finished', () => {
    let s = runEventsArrived(atLoop(), storyTwoDoneStoryThreeRetrying()).state;
    const waiting = runEventsArrived(s, [
      at(70, { type: 'run.awaiting-choice', outcome: 'complete', options: ['cleanup', 'keep'] }),
    ]);
    expect(waiting.state.screen).toBe('completion');
    s = waiting.state;
    expect(s.run?.completionChoice).toBe('cleanup');
    s = press(s, 'right').state;
    expect(s.run?.completionChoice).toBe('keep');
    s = press(s, 'up').state;
    expect(s.run?.completionChoice).toBe('cleanup');
    const apply = press(s, 'enter');
    expect(apply.effects).toEqual([{ type: 'choose', choice: 'cleanup' }]);
    expect(apply.state.run?.applying).toBe('cleanup');
    // While git works, neither a second Enter nor the arrows do anything.
    expect(press(apply.state, 'enter').effects).toEqual([]);
    expect(press(apply.state, 'left').state.run?.completionChoice).toBe('cleanup');
    const done = runEventsArrived(apply.state, [
      at(75, {
        type: 'run.finished',
        outcome: 'complete',
        choice: 'cleanup',
        branch: 'ralph/add-auth',
        originalBranch: 'main',
        storiesCompleted: 3,
        storiesTotal: 3,
        costUsd: 0.2,
        durationMs: 75_000,
      }),
    ]);
    expect(done.state.screen).toBe('result');
    expect(done.effects).toEqual([
      {
        type: 'load-result',
        run: {
          change: 'add-auth',
          branch: 'ralph/add-auth',
          originalBranch: 'main',
          baseSha: 'abc1234def5678',
          choice: 'cleanup',
        },
      },
    ]);
    const ended = runEnded(done.state, { exitCode: 0 });
    expect(press(ended, 'q').effects).toEqual([{ type: 'exit', code: 0 }]);
    const back = press(ended, 'escape');
    expect(back.state.screen).toBe('changes');
    expect(back.state.run).toBeNull();
  });

  it('re-reads the tasks after every attempt', () => {
    const t = runEventsArrived(atLoop(), storyTwoDoneStoryThreeRetrying());
    expect(t.effects).toEqual([{ type: 'refresh-change', name: 'add-auth' }]);
  });
});

describe('the Loop screen keys', () => {
  it('follows the running story until another is picked', () => {
    let s = runEventsArrived(atLoop(), storyTwoDoneStoryThreeRetrying().slice(0, 3)).state;
    expect(s.run?.selectedStoryId).toBe('2');
    s = press(s, 'left').state;
    expect(s.run?.selectedStoryId).toBe('1');
    expect(s.run?.followStory).toBe(false);
    s = runEventsArrived(s, storyTwoDoneStoryThreeRetrying().slice(3)).state;
    expect(s.run?.selectedStoryId).toBe('1');
    s = press(press(s, 'right').state, 'right').state;
    expect(s.run?.selectedStoryId).toBe('3');
    expect(s.run?.followStory).toBe(true);
    expect(press(s, 'right').state.run?.selectedStoryId).toBe('3');
  });

  it('scrolls the Agent tab out of and back into follow mode', () => {
    let s = runEventsArrived(atLoop(), storyTwoDoneStoryThreeRetrying()).state;
    s = press(s, 'tab').state;
    expect(s.run?.tab).toBe('agent');
    // Rows 0-9 hold lines 0-4 (two rows each), rows 10-49 one line each.
    const rowMap = {
      firstLine: 0,
      starts: [0, 2, 4, 6, 8, ...Array.from({ length: 40 }, (_, i) => 10 + i)],
      total: 50,
    };
    s = handleKey(s, 'up', { now: T0, pane, rowMap }).state;
    // Top row 39 shows line 5 + (39 - 10) = 34.
    expect(s.run?.agentScroll).toEqual({ follow: false, anchor: { line: 34, row: 0 } });
    s = handleKey(s, 'home', { now: T0, pane, rowMap }).state;
    s = handleKey(s, 'down', { now: T0, pane, rowMap }).state;
    expect(s.run?.agentScroll).toEqual({ follow: false, anchor: { line: 0, row: 1 } });
    s = handleKey(s, 'pagedown', { now: T0, pane, rowMap }).state;
    expect(s.run?.agentScroll.anchor).toEqual({ line: 5, row: 0 });
    s = handleKey(s, 'end', { now: T0, pane, rowMap }).state;
    expect(s.run?.agentScroll.follow).toBe(true);
  });

  it('asks to stop on q or Ctrl-C, and quits at once on the third press within 3 s', () => {
    const s = runEventsArrived(atLoop(), storyTwoDoneStoryThreeRetrying()).state;
    const first = press(s, 'q', T0);
    expect(first.effects).toEqual([{ type: 'stop' }]);
    expect(first.state.run?.stopRequested).toBe(true);
    const second = press(first.state, 'ctrl-c', T0 + 1000);
    expect(second.effects).toEqual([]);
    expect(second.state.run?.hint).toMatch(/press q 1 more time within 3 s/);
    const third = press(second.state, 'q', T0 + 2500);
    expect(third.effects).toEqual([{ type: 'force-quit' }, { type: 'exit', code: 130 }]);
    // Too slow: the presses expire and no force quit happens.
    const late = press(second.state, 'q', T0 + 3500);
    expect(late.effects).toEqual([]);
  });

  it('lets the user leave once a run ended without finishing', () => {
    const s = runEnded(runEventsArrived(atLoop(), storyTwoDoneStoryThreeRetrying()).state, {
      error: 'state.json unreadable',
    });
    expect(s.run?.ended).toEqual({ exitCode: 1 });
    expect(s.run?.view.errors.at(-1)?.message).toBe('state.json unreadable');
    expect(press(s, 'q').effects).toEqual([{ type: 'exit', code: 1 }]);
    expect(press(s, 'escape').state.screen).toBe('changes');
  });

  // run.finished shows the Result screen; the loop's promise settles after it (the record
  // written, the lock let go), later still on a loaded machine. Leaving the Result screen in
  // between must not lose the run's exit code (CI saw 0 for a run that stopped on an error).
  describe('the exit code when the Result screen is left before the run has settled', () => {
    const stoppedOnError = (): UiState =>
      runEventsArrived(atLoop(), [
        at(5, {
          type: 'run.finished',
          outcome: 'error',
          choice: null,
          branch: 'ralph/add-auth',
          originalBranch: 'main',
          storiesCompleted: 0,
          storiesTotal: 3,
          costUsd: 0,
          durationMs: 5_000,
        }),
      ]).state;

    it('Esc then q at once: the outcome the Result screen showed', () => {
      const result = stoppedOnError();
      expect(result.screen).toBe('result');
      expect(result.lastExitCode).toBeNull();
      const back = press(result, 'escape').state;
      expect(back.screen).toBe('changes');
      expect(press(back, 'q').effects).toEqual([{ type: 'exit', code: 1 }]);
    });

    it('Esc, then the promise settles, then q: the code the run ended with', () => {
      const back = press(stoppedOnError(), 'escape').state;
      const settled = runEnded(back, { exitCode: 1 });
      expect(settled.run).toBeNull();
      expect(press(settled, 'q').effects).toEqual([{ type: 'exit', code: 1 }]);
      // A run whose promise rejected after the user left is an error too.
      const rejected = runEnded(back, { error: 'lock file unreadable' });
      expect(press(rejected, 'q').effects).toEqual([{ type: 'exit', code: 1 }]);
    });
  });
});
