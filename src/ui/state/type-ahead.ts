import type { Transition, UiState } from './app-state.js';
import type { UiKey } from './key-names.js';
import { handleKey, type KeyContext } from './keys.js';

/** Enough for a person typing ahead; a held-down key beyond this is dropped. */
export const MAX_TYPE_AHEAD = 32;

/**
 * Keys that act at once even while a screen waits for its data: leaving must never wait
 * for a slow read (a large repository, a stuck disk).
 */
const IMMEDIATE: readonly UiKey[] = ['q', 'ctrl-c', 'escape'];

/** Whether the screen shown is still reading what its keys act on. */
export function isWaitingForData(state: UiState): boolean {
  if (state.screen === 'changes') return state.changes.status === 'loading';
  if (state.screen === 'preview') return state.preview?.change.status === 'loading';
  return false;
}

/**
 * A key press. Keys typed before the screen's data is read (a person who types
 * `ralphtool`, Enter, ↓, Enter without waiting) are kept and replayed once it is, instead of
 * acting on an empty list; see `replayTypeAhead`.
 */
export function pressKey(state: UiState, key: UiKey, ctx: KeyContext): Transition {
  if (isWaitingForData(state) && !IMMEDIATE.includes(key)) {
    if (state.typeAhead.length >= MAX_TYPE_AHEAD) return { state, effects: [] };
    return { state: { ...state, typeAhead: [...state.typeAhead, key] }, effects: [] };
  }
  const next = handleKey(state, key, ctx);
  // Leaving the screen forgets what was typed for it.
  if (next.state.typeAhead.length > 0 && next.state.screen !== state.screen) {
    return { ...next, state: { ...next.state, typeAhead: [] } };
  }
  return next;
}

/**
 * Applies the keys typed while the screen was loading, in order, once it has loaded. A key
 * that opens another screen (Enter on a change) makes the rest wait for that one.
 */
export function replayTypeAhead(
  state: UiState,
  contextFor: (state: UiState) => KeyContext,
): Transition {
  if (state.typeAhead.length === 0 || isWaitingForData(state)) return { state, effects: [] };
  let current: UiState = { ...state, typeAhead: [] };
  const effects: Transition['effects'] = [];
  for (const key of state.typeAhead) {
    const next = pressKey(current, key, contextFor(current));
    current = next.state;
    effects.push(...next.effects);
  }
  return { state: current, effects };
}
