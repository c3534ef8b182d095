import { describe, expect, it } from 'vitest';
import {
  changeOpened,
  changesLoaded,
  initialState,
  type UiState,
} from '../../src/ui/state/app-state.js';
import { toUiKey, toUiKeys, type UiKey } from '../../src/ui/state/key-names.js';
import type { KeyContext } from '../../src/ui/state/keys.js';
import { MAX_TYPE_AHEAD, pressKey, replayTypeAhead } from '../../src/ui/state/type-ahead.js';
import { addAuth, change, NO_KEY, story, summaryOf, T0 } from './support/fixtures.js';

const context = (): KeyContext => ({ now: T0, pane: { total: 50, viewport: 10 } });

function typed(state: UiState, ...keys: UiKey[]): UiState {
  return keys.reduce((s, key) => pressKey(s, key, context()).state, state);
}

const otherChange = change('fix-logout', [story('1', 'Fix', [false])]);
const summaries = [summaryOf(addAuth()), summaryOf(otherChange)];

describe('keys typed before a screen has loaded', () => {
  it('wait for the change list, then move and open the one chosen', () => {
    const waiting = typed(initialState(2000).state, 'down', 'enter');
    expect(waiting.screen).toBe('changes');
    expect(waiting.typeAhead).toEqual(['down', 'enter']);

    const t = replayTypeAhead(
      changesLoaded(waiting, { status: 'ready', value: summaries }),
      context,
    );
    expect(t.state.screen).toBe('preview');
    expect(t.state.preview?.name).toBe('fix-logout');
    expect(t.effects).toEqual([{ type: 'open-change', name: 'fix-logout' }]);
    expect(t.state.typeAhead).toEqual([]);
  });

  it('after Enter opens a change, the rest waits for that change: r then runs it', () => {
    const waiting = typed(initialState(2000).state, 'enter', 'tab', 'r');
    const listed = replayTypeAhead(
      changesLoaded(waiting, { status: 'ready', value: summaries }),
      context,
    );
    expect(listed.state.screen).toBe('preview');
    expect(listed.state.typeAhead).toEqual(['tab', 'r']);
    expect(listed.effects).toEqual([{ type: 'open-change', name: 'add-auth' }]);

    const opened = replayTypeAhead(
      changeOpened(listed.state, 'add-auth', { status: 'ready', value: addAuth() }),
      context,
    );
    expect(opened.state.screen).toBe('loop');
    expect(opened.effects).toEqual([{ type: 'start-run', change: 'add-auth' }]);
    expect(opened.state.typeAhead).toEqual([]);
  });

  it('q quits at once, without waiting for the list', () => {
    const t = pressKey(typed(initialState(2000).state, 'down'), 'q', context());
    expect(t.effects).toEqual([{ type: 'exit', code: 0 }]);
  });

  it('Esc leaves a preview that is still loading, forgetting what was typed for it', () => {
    const listed = changesLoaded(initialState(2000).state, { status: 'ready', value: summaries });
    const opening = typed(pressKey(listed, 'enter', context()).state, 'r');
    expect(opening.typeAhead).toEqual(['r']);
    const back = pressKey(opening, 'escape', context());
    expect(back.state.screen).toBe('changes');
    expect(back.state.typeAhead).toEqual([]);
    // The change that arrives late opens nothing and starts nothing.
    const late = replayTypeAhead(
      changeOpened(back.state, 'add-auth', { status: 'ready', value: addAuth() }),
      context,
    );
    expect(late.state.screen).toBe('changes');
    expect(late.effects).toEqual([]);
  });

  it('keeps at most MAX_TYPE_AHEAD keys', () => {
    const keys: UiKey[] = Array.from({ length: MAX_TYPE_AHEAD + 10 }, () => 'down');
    expect(typed(initialState(2000).state, ...keys).typeAhead).toHaveLength(MAX_TYPE_AHEAD);
  });

  it('still applies the keys when the list could not be read', () => {
    const waiting = typed(initialState(2000).state, 'down', 'enter');
    const t = replayTypeAhead(
      changesLoaded(waiting, { status: 'error', message: 'no openspec/ folder' }),
      context,
    );
    expect(t.state.screen).toBe('changes');
    expect(t.state.typeAhead).toEqual([]);
    expect(t.effects).toEqual([]);
  });
});

describe('toUiKey', () => {
  const none = NO_KEY;

  it('reads a line feed as Enter (what the terminal sends before raw mode)', () => {
    expect(toUiKey('\n', none)).toBe('enter');
    expect(toUiKey('', { ...none, return: true })).toBe('enter');
    expect(toUiKey('x', none)).toBeNull();
  });

  it('splits a run of plain characters into its keys (typed before raw mode, or pasted)', () => {
    expect(toUiKeys('\n\tr', none)).toEqual(['enter', 'tab', 'r']);
    expect(toUiKeys('xq', none)).toEqual(['q']);
    expect(toUiKeys('', { ...none, downArrow: true })).toEqual(['down']);
    expect(toUiKeys('x', none)).toEqual([]);
    // Three Ctrl-C read at once (a fast hand, or a loaded machine) are three presses.
    expect(toUiKeys('\x03\x03\x03', none)).toEqual(['ctrl-c', 'ctrl-c', 'ctrl-c']);
  });
});
