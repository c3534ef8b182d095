import type { Change, ChangeSummary } from '../../core/change.js';
import type { CompletionChoice, TimedRunEvent } from '../../core/events.js';
import { exitCodeFor } from '../../core/loop.js';
import type { ChangedFile, FinishedRun } from '../controller.js';
import { oneLine } from '../../format/text.js';
import type { UiKey } from './key-names.js';
import { emptyList, type ListState } from './list.js';
import { applyEvents, initialLoopView, type LoopView } from './loop-view.js';
import { noPresses, type QuitPresses } from './quit-presses.js';
import type { LineAnchor } from './line-anchor.js';
import type { RecordedRuns } from './recorded-runs.js';
import type { Dashboard } from './dashboard.js';

/**
 * The whole UI as data: which screen is shown, what each screen has loaded, and
 * the run being watched. Transitions are pure and return the I/O they need as
 * effects, which the App performs through the controller.
 */
export type Screen = 'changes' | 'preview' | 'loop' | 'completion' | 'result' | 'dashboard';
export type PreviewTab = 'tasks' | 'scenarios';
export type LoopTab = 'info' | 'agent';

export type Loadable<T> =
  { status: 'loading' } | { status: 'ready'; value: T } | { status: 'error'; message: string };

export interface PreviewState {
  name: string;
  change: Loadable<Change>;
  tab: PreviewTab;
  scroll: Record<PreviewTab, number>;
}

/**
 * The run the UI started and is watching: what its events say (`view`) and what the Loop,
 * Completion and Result screens let the user pick and scroll. Not the run's own record
 * (checkpoint's `RunState`, kept in state.json).
 */
export interface WatchedRun {
  change: string;
  view: LoopView;
  /** The change as last read from disk: the Info tab's tasks, refreshed after every attempt. */
  tasks: Change | null;
  stopRequested: boolean;
  quit: QuitPresses;
  /** A short hint under the stop notice (e.g. how many more presses quit at once). */
  hint: string | null;
  selectedStoryId: string | null;
  /** The selection follows the running story until the user picks another. */
  followStory: boolean;
  tab: LoopTab;
  infoScroll: number;
  /** The Agent tab follows new output, or stays on the line the user scrolled to. */
  agentScroll: AgentScroll;
  completionChoice: CompletionChoice;
  applying: CompletionChoice | null;
  /** Set when the loop's promise settled. */
  ended: { exitCode: number } | null;
  result: { files: Loadable<ChangedFile[]>; change: Loadable<Change>; scroll: number };
}

export interface AgentScroll {
  follow: boolean;
  anchor: LineAnchor;
}

export const followingAgent: AgentScroll = { follow: true, anchor: { line: 0, row: 0 } };

export interface UiState {
  screen: Screen;
  changes: Loadable<ChangeSummary[]>;
  changesList: ListState;
  preview: PreviewState | null;
  run: WatchedRun | null;
  /** Exit code of the last run that ended, reported when the app exits. */
  lastExitCode: number | null;
  /** Keys pressed while the screen was still loading, applied once it has (type-ahead.ts). */
  typeAhead: readonly UiKey[];
  maxTranscriptLines: number;
  /** Unfinished runs recorded in the repository, marked on the change list (recorded-runs.ts). */
  recorded: RecordedRuns;
  /** Changes marked on the list (Space) to start together, each in its own worktree. */
  marked: readonly string[];
  /** Several runs started together (dashboard.ts); null when none is. */
  dashboard: Dashboard | null;
}

export type Effect =
  | { type: 'load-changes' }
  | { type: 'open-change'; name: string }
  | { type: 'start-run'; change: string }
  | { type: 'resume-run'; change: string; answer?: string }
  | { type: 'finish-run'; change: string; choice: CompletionChoice }
  | { type: 'stop' }
  | { type: 'force-quit' }
  | { type: 'choose'; choice: CompletionChoice }
  | { type: 'refresh-change'; name: string }
  | { type: 'load-result'; run: FinishedRun }
  | { type: 'exit'; code: number }
  | { type: 'start-runs'; changes: readonly string[] }
  | { type: 'choose-for'; change: string; choice: CompletionChoice }
  | { type: 'choose-all'; choice: CompletionChoice }
  | { type: 'read-run-change'; change: string; root: string | null };

export interface Transition {
  state: UiState;
  effects: Effect[];
}

export function initialState(maxTranscriptLines: number): Transition {
  return {
    state: {
      screen: 'changes',
      changes: { status: 'loading' },
      changesList: emptyList,
      preview: null,
      run: null,
      lastExitCode: null,
      typeAhead: [],
      maxTranscriptLines,
      recorded: { marks: {}, confirming: null, notice: null, answering: null },
      marked: [],
      dashboard: null,
    },
    effects: [{ type: 'load-changes' }],
  };
}

export function changesLoaded(state: UiState, changes: Loadable<ChangeSummary[]>): UiState {
  const count = changes.status === 'ready' ? changes.value.length : 0;
  const selected = Math.min(state.changesList.selected, Math.max(0, count - 1));
  return { ...state, changes, changesList: { ...state.changesList, selected } };
}

export function changeOpened(state: UiState, name: string, change: Loadable<Change>): UiState {
  if (state.preview?.name !== name) return state;
  return { ...state, preview: { ...state.preview, change } };
}

export function newRun(change: string, tasks: Change | null): WatchedRun {
  return {
    change,
    view: initialLoopView(change),
    tasks,
    stopRequested: false,
    quit: noPresses,
    hint: null,
    selectedStoryId: null,
    followStory: true,
    tab: 'info',
    infoScroll: 0,
    agentScroll: followingAgent,
    completionChoice: 'cleanup',
    applying: null,
    ended: null,
    result: { files: { status: 'loading' }, change: { status: 'loading' }, scroll: 0 },
  };
}

/** Folds a batch of events into the run and moves between Loop, Completion and Result. */
export function runEventsArrived(state: UiState, events: readonly TimedRunEvent[]): Transition {
  const run = state.run;
  if (!run || events.length === 0) return { state, effects: [] };
  const view = applyEvents(run.view, events, state.maxTranscriptLines);
  const effects: Effect[] = [];
  const attemptEnded = events.some(
    (e) => e.type === 'story.completed' || e.type === 'checkpoint.reverted',
  );
  if (attemptEnded) effects.push({ type: 'refresh-change', name: run.change });

  let selectedStoryId = run.selectedStoryId;
  if ((run.followStory || selectedStoryId === null) && view.currentStoryId !== null) {
    selectedStoryId = view.currentStoryId;
  }
  if (selectedStoryId === null) selectedStoryId = view.summary.stories[0]?.id ?? null;
  const switched = selectedStoryId !== run.selectedStoryId;
  const next: WatchedRun = {
    ...run,
    view,
    selectedStoryId,
    infoScroll: switched ? 0 : run.infoScroll,
    agentScroll: switched ? followingAgent : run.agentScroll,
  };

  let screen = state.screen;
  if (view.finished && !run.view.finished) {
    screen = 'result';
    effects.push({ type: 'load-result', run: finishedRun(view) });
  } else if (view.awaiting && !run.view.awaiting && screen === 'loop') {
    screen = 'completion';
  }
  return { state: { ...state, screen, run: next }, effects };
}

function finishedRun(view: LoopView): FinishedRun {
  return {
    change: view.change,
    branch: view.finished?.branch ?? view.started?.branch ?? '',
    originalBranch: view.finished?.originalBranch ?? view.started?.originalBranch ?? '',
    baseSha: view.started?.baseSha ?? '',
    choice: view.finished?.choice ?? null,
  };
}

/**
 * The loop's promise settled: remember its exit code; a run that never finished stays on its
 * screen. The Result screen shows once `run.finished` arrives, which can be before the promise
 * settles (the run still writes its record and lets its lock go): a user who already left it
 * (Esc) still leaves with this run's code.
 */
export function runEnded(
  state: UiState,
  outcome: { exitCode: number } | { error: string },
): UiState {
  const exitCode = 'exitCode' in outcome ? outcome.exitCode : 1;
  const run = state.run;
  if (!run) return { ...state, lastExitCode: exitCode };
  const errors =
    'error' in outcome
      ? [...run.view.errors, { message: oneLine(outcome.error), fatal: true, at: Number.NaN }]
      : run.view.errors;
  const screen = state.screen === 'completion' && !run.view.finished ? 'loop' : state.screen;
  return {
    ...state,
    screen,
    lastExitCode: exitCode,
    run: { ...run, ended: { exitCode }, applying: null, view: { ...run.view, errors } },
  };
}

export function runChangeRefreshed(state: UiState, change: Change): UiState {
  if (!state.run || state.run.change !== change.name) return state;
  return { ...state, run: { ...state.run, tasks: change } };
}

export function resultLoaded(
  state: UiState,
  part: { files: Loadable<ChangedFile[]> } | { change: Loadable<Change> },
): UiState {
  if (!state.run) return state;
  return { ...state, run: { ...state.run, result: { ...state.run.result, ...part } } };
}

/** The exit code to report when the user leaves now. */
export function exitCodeNow(state: UiState): number {
  const finished = state.run?.view.finished;
  if (state.lastExitCode !== null) return state.lastExitCode;
  return finished ? exitCodeFor(finished.outcome) : 0;
}
