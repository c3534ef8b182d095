/**
 * The keys of the screens of one run (the change list, the preview, the loop, the completion
 * choice, the result). keys.ts dispatches to them and to the dashboard's (dashboard-keys.ts),
 * which opens one run's loop screen through `loopKeys`. Pure.
 */
import { plural } from '../../format/units.js';
import { moveSelection } from './list.js';
import { pressesLeft, pressQuit } from './quit-presses.js';
import type { UiKey } from './key-names.js';
import { anchorFromTop, topFromAnchor, type RowMap } from './line-anchor.js';
import { maxTop, pageSize, scrollBy, scrollFollowBy, type PaneSize } from './scroll.js';
import {
  exitCodeNow,
  followingAgent,
  newRun,
  type AgentScroll,
  type Effect,
  type WatchedRun,
  type Transition,
  type UiState,
} from './app-state.js';

export interface KeyContext {
  /** Current time in ms (for q×3). */
  now: number;
  /** Size of the screen's scrollable pane as last laid out. */
  pane: PaneSize;
  /** Where each transcript line starts, when the pane shows one. */
  rowMap?: RowMap | undefined;
}

const STOPPED_BY_USER = 130;

/** The loop screen's keys (stories, tabs, scrolling), for a run the dashboard opened. */
export const loopKeys = (state: UiState, key: UiKey, ctx: KeyContext): Transition =>
  onLoop(state, key, ctx);

const same = (state: UiState): Transition => ({ state, effects: [] });
const quit = (state: UiState): Transition => ({
  state,
  effects: [{ type: 'exit', code: exitCodeNow(state) }],
});

export function onChanges(state: UiState, key: UiKey, ctx: KeyContext): Transition {
  const items = state.changes.status === 'ready' ? state.changes.value : [];
  const move = (delta: number): Transition => ({
    state: {
      ...state,
      changesList: moveSelection(state.changesList, delta, items.length, ctx.pane.viewport),
    },
    effects: [],
  });
  switch (key) {
    case 'up':
      return move(-1);
    case 'down':
      return move(1);
    case 'enter': {
      const chosen = items[state.changesList.selected];
      if (!chosen) return same(state);
      return {
        state: {
          ...state,
          screen: 'preview',
          preview: {
            name: chosen.name,
            change: { status: 'loading' },
            tab: 'tasks',
            scroll: { tasks: 0, scenarios: 0 },
          },
        },
        effects: [{ type: 'open-change', name: chosen.name }],
      };
    }
    case 'q':
    case 'ctrl-c':
      return quit(state);
    default:
      return same(state);
  }
}

export function onPreview(state: UiState, key: UiKey, ctx: KeyContext): Transition {
  const preview = state.preview;
  if (!preview) return same(state);
  const scroll = (delta: number): Transition => ({
    state: {
      ...state,
      preview: {
        ...preview,
        scroll: {
          ...preview.scroll,
          [preview.tab]: scrollBy(preview.scroll[preview.tab], delta, ctx.pane),
        },
      },
    },
    effects: [],
  });
  switch (key) {
    case 'tab':
    case 'shift-tab':
      return {
        state: {
          ...state,
          preview: { ...preview, tab: preview.tab === 'tasks' ? 'scenarios' : 'tasks' },
        },
        effects: [],
      };
    case 'up':
    case 'down':
    case 'pageup':
    case 'pagedown':
    case 'home':
    case 'end':
      return scroll(scrollDelta(key, ctx.pane));
    case 'r': {
      if (preview.change.status !== 'ready') return same(state);
      return {
        state: { ...state, screen: 'loop', run: newRun(preview.name, preview.change.value) },
        effects: [{ type: 'start-run', change: preview.name }],
      };
    }
    case 'escape':
      return { state: { ...state, screen: 'changes' }, effects: [{ type: 'load-changes' }] };
    case 'q':
    case 'ctrl-c':
      return quit(state);
    default:
      return same(state);
  }
}

export function onLoop(state: UiState, key: UiKey, ctx: KeyContext): Transition {
  const run = state.run;
  if (!run) return same(state);
  const set = (next: Partial<WatchedRun>, effects: Effect[] = []): Transition => ({
    state: { ...state, run: { ...run, ...next } },
    effects,
  });
  switch (key) {
    case 'left':
    case 'right':
      return set(pickStory(run, key === 'left' ? -1 : 1));
    case 'tab':
    case 'shift-tab':
      return set({ tab: run.tab === 'info' ? 'agent' : 'info' });
    case 'up':
    case 'down':
    case 'pageup':
    case 'pagedown':
    case 'home':
    case 'end': {
      const delta = scrollDelta(key, ctx.pane);
      return run.tab === 'info'
        ? set({ infoScroll: scrollBy(run.infoScroll, delta, ctx.pane) })
        : set({ agentScroll: scrollAgent(run.agentScroll, delta, ctx) });
    }
    case 'escape':
      return run.ended
        ? { state: { ...state, screen: 'changes', run: null }, effects: [{ type: 'load-changes' }] }
        : same(state);
    case 'q':
    case 'ctrl-c':
      return run.ended ? quit(state) : stopPressed(state, run, ctx.now);
    default:
      return same(state);
  }
}

/** q / Ctrl-C while a run is live: stop first, quit at once on the third press in 3 s. */
function stopPressed(state: UiState, run: WatchedRun, now: number): Transition {
  const alreadyStopping = run.stopRequested || run.view.awaiting !== null;
  const { presses, decision } = pressQuit(run.quit, now, alreadyStopping);
  if (decision === 'force-quit') {
    return {
      state: { ...state, run: { ...run, quit: presses } },
      effects: [{ type: 'force-quit' }, { type: 'exit', code: STOPPED_BY_USER }],
    };
  }
  const left = pressesLeft(presses, now);
  const hint = `press q ${plural(left, 'more time')} within 3 s to quit at once (the run stays recoverable: ralphtool resume / finish)`;
  if (decision === 'stop') {
    return {
      state: { ...state, run: { ...run, quit: presses, stopRequested: true, hint } },
      effects: [{ type: 'stop' }],
    };
  }
  return { state: { ...state, run: { ...run, quit: presses, hint } }, effects: [] };
}

function scrollAgent(scroll: AgentScroll, delta: number, ctx: KeyContext): AgentScroll {
  const map = ctx.rowMap ?? { firstLine: 0, starts: [], total: ctx.pane.total };
  const top = scroll.follow ? maxTop(ctx.pane) : topFromAnchor(scroll.anchor, map);
  const next = scrollFollowBy({ top, follow: false }, delta, ctx.pane);
  return { follow: next.follow, anchor: anchorFromTop(next.top, map) };
}

function pickStory(run: WatchedRun, delta: number): Partial<WatchedRun> {
  const ids = run.view.summary.stories.map((s) => s.id);
  if (ids.length === 0) return {};
  const at = Math.max(0, ids.indexOf(run.selectedStoryId ?? ''));
  const selectedStoryId = ids[Math.max(0, Math.min(ids.length - 1, at + delta))] ?? null;
  if (selectedStoryId === run.selectedStoryId) return {};
  return {
    selectedStoryId,
    followStory: selectedStoryId === run.view.currentStoryId,
    infoScroll: 0,
    agentScroll: followingAgent,
  };
}

export function onCompletion(state: UiState, key: UiKey, ctx: KeyContext): Transition {
  const run = state.run;
  if (!run) return same(state);
  switch (key) {
    case 'left':
    case 'right':
    case 'up':
    case 'down': {
      if (run.applying) return same(state);
      // Cleanup is the first option, Keep the second: the arrows move towards one, never wrap.
      const completionChoice = key === 'left' || key === 'up' ? 'cleanup' : 'keep';
      return { state: { ...state, run: { ...run, completionChoice } }, effects: [] };
    }
    case 'enter':
      if (run.applying) return same(state);
      return {
        state: { ...state, run: { ...run, applying: run.completionChoice } },
        effects: [{ type: 'choose', choice: run.completionChoice }],
      };
    case 'q':
    case 'ctrl-c':
      return stopPressed(state, run, ctx.now);
    default:
      return same(state);
  }
}

export function onResult(state: UiState, key: UiKey, ctx: KeyContext): Transition {
  const run = state.run;
  switch (key) {
    case 'up':
    case 'down':
    case 'pageup':
    case 'pagedown':
    case 'home':
    case 'end':
      if (!run) return same(state);
      return {
        state: {
          ...state,
          run: {
            ...run,
            result: {
              ...run.result,
              scroll: scrollBy(run.result.scroll, scrollDelta(key, ctx.pane), ctx.pane),
            },
          },
        },
        effects: [],
      };
    case 'escape':
      // The run's code goes with the user: its promise may settle only after they left.
      return {
        state: { ...state, screen: 'changes', run: null, lastExitCode: exitCodeNow(state) },
        effects: [{ type: 'load-changes' }],
      };
    case 'q':
    case 'ctrl-c':
      return quit(state);
    default:
      return same(state);
  }
}

function scrollDelta(key: UiKey, pane: PaneSize): number {
  switch (key) {
    case 'up':
      return -1;
    case 'down':
      return 1;
    case 'pageup':
      return -pageSize(pane.viewport);
    case 'pagedown':
      return pageSize(pane.viewport);
    case 'home':
      return -Number.MAX_SAFE_INTEGER;
    case 'end':
      return Number.MAX_SAFE_INTEGER;
    default:
      return 0;
  }
}
