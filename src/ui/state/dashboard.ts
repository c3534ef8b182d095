import type { AccountWindow } from '../../core/account-window.js';
import type { CompletionChoice, RunOutcome, TimedRunEvent } from '../../core/events.js';
import { oneLine } from '../../format/text.js';
import type { ManyRunsEnd, UiMergeReport } from '../controller.js';
import type { Change } from '../../core/change.js';
import {
  newRun,
  runEventsArrived,
  type Effect,
  type Transition,
  type UiState,
  type WatchedRun,
} from './app-state.js';
import { emptyList, type ListState } from './list.js';
import { noPresses, type QuitPresses } from './quit-presses.js';

/**
 * Several runs started together from the change list, each in its own worktree: one row per
 * change on the dashboard, each with the same loop view a single run has (Enter opens it).
 * The runs themselves belong to the controller; this is what their events say. Pure.
 */
export interface DashboardRun {
  /** The loop screen's model of this change, fed by its own events only. */
  run: WatchedRun;
  /** The choice sent for this run (c/k on its row, or C/K for all); null while none is. */
  chosen: CompletionChoice | null;
  /** How its run ended outside the loop (a refusal before it started, a crash), one line. */
  error: string | null;
  /** The last note about this run alone (e.g. why it could not start). */
  notice: string | null;
  /** The run's worktree (`run.started`), where its tasks.md is ticked. */
  worktree: string | null;
}

export interface Dashboard {
  /** The changes, in the order they were started. */
  changes: readonly string[];
  runs: Readonly<Record<string, DashboardRun>>;
  list: ListState;
  /** The change whose loop screen is shown over the dashboard; null: the dashboard itself. */
  opened: string | null;
  /** The merge check of the finished branches, once every loop has ended. */
  merge: UiMergeReport | null;
  /** The choice applied to every run not answered yet (C/K), including those asked later. */
  allChoice: CompletionChoice | null;
  /** The accounts of the runs' agents, as the usage governor last knew them (none known: []). */
  accounts: readonly AccountWindow[];
  /** Notes about all runs (a shared usage-limit wait, …), newest last. */
  notices: readonly string[];
  stopRequested: boolean;
  quit: QuitPresses;
  hint: string | null;
  /** Set when every run has ended (the controller's `done` settled). */
  ended: { exitCode: number } | null;
}

/** What a dashboard row says a run is doing. */
export type RowState =
  | { kind: 'queued' }
  | { kind: 'running' }
  | { kind: 'waiting' }
  | { kind: 'awaiting'; outcome: RunOutcome }
  | { kind: 'done'; outcome: RunOutcome; choice: CompletionChoice | null }
  | { kind: 'failed'; message: string };

export const MAX_NOTICES = 20;

export function newDashboard(changes: readonly string[]): Dashboard {
  const runs: Record<string, DashboardRun> = {};
  for (const change of changes) {
    runs[change] = {
      run: newRun(change, null),
      chosen: null,
      error: null,
      notice: null,
      worktree: null,
    };
  }
  return {
    changes,
    runs,
    list: emptyList,
    opened: null,
    merge: null,
    allChoice: null,
    accounts: [],
    notices: [],
    stopRequested: false,
    quit: noPresses,
    hint: null,
    ended: null,
  };
}

export function rowState(entry: DashboardRun): RowState {
  const view = entry.run.view;
  if (view.finished) {
    return { kind: 'done', outcome: view.finished.outcome, choice: view.finished.choice };
  }
  if (entry.error !== null) return { kind: 'failed', message: entry.error };
  if (view.awaiting) return { kind: 'awaiting', outcome: view.awaiting.outcome };
  if (view.waiting) return { kind: 'waiting' };
  if (view.started) return { kind: 'running' };
  return { kind: 'queued' };
}

/** The selected row's change. */
export function selectedChange(dash: Dashboard): string | null {
  return dash.changes[dash.list.selected] ?? null;
}

/** Whether a run waits for its completion choice and none was sent for it yet. */
export function needsChoice(entry: DashboardRun): boolean {
  return entry.chosen === null && rowState(entry).kind === 'awaiting';
}

function withDashboard(state: UiState, next: Dashboard): UiState {
  return { ...state, dashboard: next };
}

/**
 * A batch of one change's events: folded into that change's loop view exactly as a single
 * run's are (the same reducer), without moving between screens: the dashboard stays put.
 */
export function dashboardEventsArrived(
  state: UiState,
  change: string,
  events: readonly TimedRunEvent[],
): Transition {
  const dash = state.dashboard;
  const entry = dash?.runs[change];
  if (!dash || !entry || events.length === 0) return { state, effects: [] };
  const folded = runEventsArrived({ ...state, screen: 'loop', run: entry.run }, events);
  const run = folded.state.run ?? entry.run;
  // An answer given with C/K before this run asked counts for it too (the controller has it).
  const chosen = entry.chosen ?? (run.view.awaiting ? dash.allChoice : null);
  let worktree = entry.worktree;
  for (const event of events) {
    if (event.type === 'run.started' && event.worktree !== undefined) worktree = event.worktree;
  }
  // The Info tab's tasks: read once the run has started, again after every attempt, from the
  // run's worktree (the user's own tasks.md is not the one the run ticks).
  const read =
    folded.effects.some((e) => e.type === 'refresh-change') ||
    (entry.run.view.started === null && run.view.started !== null);
  const effects: Effect[] = read ? [{ type: 'read-run-change', change, root: worktree }] : [];
  return {
    state: withDashboard(state, {
      ...dash,
      runs: { ...dash.runs, [change]: { ...entry, run, chosen, worktree } },
    }),
    effects,
  };
}

/** A run's change as read from its worktree: the loop screen's Info tab shows its tasks. */
export function dashboardChangeRead(state: UiState, change: string, read: Change): UiState {
  const dash = state.dashboard;
  const entry = dash?.runs[change];
  if (!dash || !entry) return state;
  return withDashboard(state, {
    ...dash,
    runs: { ...dash.runs, [change]: { ...entry, run: { ...entry.run, tasks: read } } },
  });
}

export function mergeChecked(state: UiState, merge: UiMergeReport): UiState {
  if (!state.dashboard) return state;
  return withDashboard(state, { ...state.dashboard, merge });
}

/** The accounts' windows read again (controller.accounts). */
export function dashboardAccounts(state: UiState, accounts: readonly AccountWindow[]): UiState {
  if (!state.dashboard) return state;
  return withDashboard(state, { ...state.dashboard, accounts });
}

export function dashboardNotice(state: UiState, change: string | null, message: string): UiState {
  const dash = state.dashboard;
  if (!dash) return state;
  const text = oneLine(message);
  const entry = change === null ? undefined : dash.runs[change];
  if (entry && change !== null) {
    return withDashboard(state, {
      ...dash,
      runs: { ...dash.runs, [change]: { ...entry, notice: text } },
    });
  }
  const label = change === null ? text : `${oneLine(change)}: ${text}`;
  return withDashboard(state, { ...dash, notices: [...dash.notices, label].slice(-MAX_NOTICES) });
}

/** Every run has ended: how each one did outside its loop, and the exit code to report. */
export function dashboardEnded(
  state: UiState,
  outcome: { exitCode: number; runs: readonly ManyRunsEnd[] } | { error: string },
): UiState {
  const dash = state.dashboard;
  if (!dash) return state;
  const exitCode = 'exitCode' in outcome ? outcome.exitCode : 1;
  const runs = { ...dash.runs };
  if ('runs' in outcome) {
    for (const end of outcome.runs) {
      const entry = runs[end.change];
      if (!entry) continue;
      const ended = { ...entry.run, ended: { exitCode: end.exitCode } };
      runs[end.change] = {
        ...entry,
        run: ended,
        error: end.error === null ? entry.error : oneLine(end.error),
      };
    }
  }
  const notices =
    'error' in outcome
      ? [...dash.notices, oneLine(outcome.error)].slice(-MAX_NOTICES)
      : dash.notices;
  return {
    ...state,
    lastExitCode: exitCode,
    dashboard: { ...dash, runs, notices, opened: null, ended: { exitCode } },
  };
}
