import type { CompletionChoice } from '../../core/events.js';
import { plural } from '../../format/units.js';
import { exitCodeNow, type Effect, type Transition, type UiState } from './app-state.js';
import {
  needsChoice,
  newDashboard,
  rowState,
  selectedChange,
  type Dashboard,
} from './dashboard.js';
import type { UiKey } from './key-names.js';
import { loopKeys, type KeyContext } from './screen-keys.js';
import { moveSelection } from './list.js';
import { pressesLeft, pressQuit } from './quit-presses.js';

/**
 * The keys of several runs: marking changes on the list and starting them together, and the
 * dashboard (its rows, the loop screen of one run, stop all, the completion choices). Pure.
 */

const STOPPED_BY_USER = 130;
const same = (state: UiState): Transition => ({ state, effects: [] });

/**
 * Space, a and s on the change list; null for any other key. Space marks the selected change,
 * a marks every change with stories left, s starts the marked ones, each in its own worktree.
 */
export function markKey(state: UiState, key: UiKey): Transition | null {
  if (key !== 'space' && key !== 'a' && key !== 's') return null;
  const items = state.changes.status === 'ready' ? state.changes.value : [];
  if (key === 'space') {
    const name = items[state.changesList.selected]?.name;
    if (name === undefined) return same(state);
    const marked = state.marked.includes(name)
      ? state.marked.filter((m) => m !== name)
      : [...state.marked, name];
    return same({ ...state, marked });
  }
  if (key === 'a') {
    const left = items.filter((c) => c.stories.done < c.stories.total).map((c) => c.name);
    // Pressed again with all of them marked: unmark them, so the key toggles like Space.
    const all = left.length > 0 && left.every((n) => state.marked.includes(n));
    return same({ ...state, marked: all ? [] : left });
  }
  // In the list's order, whatever order they were marked in; only changes still listed.
  const changes = items.map((c) => c.name).filter((n) => state.marked.includes(n));
  if (changes.length === 0) return same(state);
  return {
    state: { ...state, screen: 'dashboard', marked: [], dashboard: newDashboard(changes) },
    effects: [{ type: 'start-runs', changes }],
  };
}

/** A key on the dashboard, or on the loop screen of the run it opened. */
export function dashboardKey(state: UiState, key: UiKey, ctx: KeyContext): Transition {
  const dash = state.dashboard;
  if (!dash) return same(state);
  if (dash.opened !== null && dash.ended === null) return openedKey(state, dash, key, ctx);
  const set = (next: Partial<Dashboard>, effects: Effect[] = []): Transition => ({
    state: { ...state, dashboard: { ...dash, ...next } },
    effects,
  });
  switch (key) {
    case 'up':
    case 'down':
      return set({
        list: moveSelection(
          dash.list,
          key === 'up' ? -1 : 1,
          dash.changes.length,
          ctx.pane.viewport,
        ),
      });
    case 'enter': {
      const change = selectedChange(dash);
      return change === null || dash.ended !== null ? same(state) : set({ opened: change });
    }
    case 'c':
    case 'k': {
      const change = selectedChange(dash);
      const entry = change === null ? undefined : dash.runs[change];
      if (change === null || !entry || !needsChoice(entry)) return same(state);
      const choice: CompletionChoice = key === 'c' ? 'cleanup' : 'keep';
      return set({ runs: { ...dash.runs, [change]: { ...entry, chosen: choice } } }, [
        { type: 'choose-for', change, choice },
      ]);
    }
    case 'C':
    case 'K':
      return chooseAll(state, dash, key === 'C' ? 'cleanup' : 'keep');
    case 'escape':
      return dash.ended === null
        ? same(state)
        : {
            state: { ...state, screen: 'changes', dashboard: null },
            effects: [{ type: 'load-changes' }],
          };
    case 'q':
    case 'ctrl-c':
      return dash.ended === null
        ? stopAll(state, dash, ctx.now)
        : { state, effects: [{ type: 'exit', code: exitCodeNow(state) }] };
    default:
      return same(state);
  }
}

/** The loop screen of one run: its own keys, Esc back, q / Ctrl-C stop all as on the dashboard. */
function openedKey(state: UiState, dash: Dashboard, key: UiKey, ctx: KeyContext): Transition {
  const change = dash.opened ?? '';
  const entry = dash.runs[change];
  if (!entry || key === 'escape') {
    return same({ ...state, dashboard: { ...dash, opened: null } });
  }
  if (key === 'q' || key === 'ctrl-c') return stopAll(state, dash, ctx.now);
  // The single run's reducer, on this run: only its own view changes, never the screen.
  const t = loopKeys({ ...state, screen: 'loop', run: entry.run }, key, ctx);
  const run = t.state.run ?? entry.run;
  return {
    state: {
      ...state,
      dashboard: { ...dash, runs: { ...dash.runs, [change]: { ...entry, run } } },
    },
    effects: t.effects.filter((e) => e.type === 'refresh-change'),
  };
}

/** C / K: the same choice for every run that waits for one now and every one that asks later. */
function chooseAll(state: UiState, dash: Dashboard, choice: CompletionChoice): Transition {
  if (dash.ended !== null || dash.allChoice !== null) return same(state);
  const runs = { ...dash.runs };
  for (const change of dash.changes) {
    const entry = runs[change];
    if (entry && needsChoice(entry)) runs[change] = { ...entry, chosen: choice };
  }
  return {
    state: { ...state, dashboard: { ...dash, runs, allChoice: choice } },
    effects: [{ type: 'choose-all', choice }],
  };
}

/**
 * q / Ctrl-C while runs are live: the first press stops them all (each reverted to its
 * checkpoint, then each asks its choice); three presses within 3 s leave at once.
 */
function stopAll(state: UiState, dash: Dashboard, now: number): Transition {
  const live = dash.changes.some((c) => {
    const entry = dash.runs[c];
    const kind = entry ? rowState(entry).kind : 'done';
    return kind === 'queued' || kind === 'running' || kind === 'waiting';
  });
  const { presses, decision } = pressQuit(dash.quit, now, dash.stopRequested || !live);
  if (decision === 'force-quit') {
    return {
      state: { ...state, dashboard: { ...dash, quit: presses } },
      effects: [{ type: 'force-quit' }, { type: 'exit', code: STOPPED_BY_USER }],
    };
  }
  const left = pressesLeft(presses, now);
  const hint = `press q ${plural(left, 'more time')} within 3 s to quit at once (every run stays recoverable: ralphtool resume --all / finish)`;
  return {
    state: {
      ...state,
      dashboard: {
        ...dash,
        quit: presses,
        hint,
        stopRequested: dash.stopRequested || decision === 'stop',
      },
    },
    effects: decision === 'stop' ? [{ type: 'stop' }] : [],
  };
}
