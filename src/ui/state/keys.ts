import { lowerKey, type UiKey } from './key-names.js';
import { recordedRunKey, withoutConfirming } from './recorded-runs.js';
import { dashboardKey, markKey } from './dashboard-keys.js';
import {
  onChanges,
  onCompletion,
  onLoop,
  onPreview,
  onResult,
  type KeyContext,
} from './screen-keys.js';
import type { Transition, UiState } from './app-state.js';

export type { KeyContext } from './screen-keys.js';

/** What a key does on the current screen. Pure. */
export function handleKey(state: UiState, pressed: UiKey, ctx: KeyContext): Transition {
  if (state.screen === 'dashboard') return dashboardKey(state, pressed, ctx);
  const key = lowerKey(pressed);
  switch (state.screen) {
    case 'changes':
      return (
        recordedRunKey(state, key) ??
        markKey(withoutConfirming(state), key) ??
        onChanges(withoutConfirming(state), key, ctx)
      );
    case 'preview':
      return onPreview(state, key, ctx);
    case 'loop':
      return onLoop(state, key, ctx);
    case 'completion':
      return onCompletion(state, key, ctx);
    case 'result':
      return onResult(state, key, ctx);
  }
}
