import type { UiState } from './app-state.js';
import { needsChoice } from './dashboard.js';

/** The terminal bell (BEL): rung once each time the UI comes to need the user. */
export const BELL = '\u0007';

/**
 * Why the UI needs the user now, or null when it does not: the completion choice is asked,
 * or the run ended blocked on a question. The bell rings when this becomes non-null or changes
 * (a new run that needs the user again), never on a redraw of the same need.
 */
export function attentionKey(state: UiState): string | null {
  const dash = state.dashboard;
  if (dash !== null && dash.ended === null) {
    // Several runs: once, when the runs that wait for a choice change.
    const asking = dash.changes.filter((c) => {
      const entry = dash.runs[c];
      return entry !== undefined && needsChoice(entry);
    });
    return asking.length > 0 ? `choices:${asking.join(',')}` : null;
  }
  const view = state.run?.view;
  if (!view) return null;
  if (view.finished?.outcome === 'blocked') return `blocked:${view.change}`;
  if (view.awaiting !== null && view.finished === null) return `completion:${view.change}`;
  return null;
}
