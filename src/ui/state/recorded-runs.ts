import type { CompletionChoice } from '../../core/events.js';
import { answerCommand } from '../../core/question.js';
import type { RunMark } from '../../core/run-mark.js';
import { oneLine } from '../../format/text.js';
import { newRun, type Transition, type UiState } from './app-state.js';
import { answerHint, openAnswer, type AnswerField } from './answer-field.js';
import type { UiKey } from './key-names.js';

/**
 * The runs recorded in the repository and not finished, as the change list shows them: a
 * change with one is marked (interrupted / waiting / kept incomplete / blocked) and the user can resume
 * it (r) or end it (c cleanup, k keep: pressed twice, as it changes branches) from the list,
 * exactly as `ralphtool resume` / `ralphtool finish` would.
 */
export interface RecordedRuns {
  /** Per change with an unfinished run, its mark. */
  marks: Readonly<Record<string, RunMark>>;
  /** c or k was pressed once on this change: the same key again applies it. */
  confirming: { change: string; choice: CompletionChoice } | null;
  /** A finish under way, or what the last one said. */
  notice: { text: string; tone: 'dim' | 'good' | 'bad' } | null;
  /** The answer to a blocked run's question being typed (answer-field.ts); null: none. */
  answering: AnswerField | null;
}

/** The label the change list shows for a mark. */
export const MARK_LABELS: Record<RunMark, string> = {
  interrupted: 'interrupted',
  waiting: 'waiting',
  'kept-incomplete': 'kept incomplete',
  blocked: 'blocked',
  kept: 'kept',
};

export function marksLoaded(state: UiState, marks: Record<string, RunMark>): UiState {
  return { ...state, recorded: { ...state.recorded, marks } };
}

/** A finish started from the list has ended: say how, and read the list and marks again. */
export function finishEnded(state: UiState, outcome: { message: string; ok: boolean }): Transition {
  const notice = { text: oneLine(outcome.message), tone: outcome.ok ? 'good' : 'bad' } as const;
  return {
    state: { ...state, recorded: { ...state.recorded, confirming: null, notice } },
    effects: [{ type: 'load-changes' }],
  };
}

/** The selected change's mark, if its run is recorded and not finished. */
export function selectedMark(state: UiState): { change: string; mark: RunMark } | null {
  if (state.changes.status !== 'ready') return null;
  const change = state.changes.value[state.changesList.selected]?.name;
  const mark = change === undefined ? undefined : state.recorded.marks[change];
  return change !== undefined && mark !== undefined ? { change, mark } : null;
}

/**
 * r, c and k on the change list; null when the key is not one of them or the selected
 * change has no recorded run (the caller does what it does otherwise, after
 * `withoutConfirming`: any other key cancels a pending c/k).
 */
export function recordedRunKey(state: UiState, key: UiKey): Transition | null {
  const selected = selectedMark(state);
  const recorded = state.recorded;
  if ((key !== 'c' && key !== 'k' && key !== 'r') || selected === null) return null;
  // A finished, kept run has nothing to resume or finish: its work waits to be merged.
  if (selected.mark === 'kept') return null;
  // A blocked run goes on with an answer: r opens the field to type it.
  if (key === 'r' && selected.mark === 'blocked') return openAnswer(state, selected.change);
  if (key === 'r') {
    return {
      state: {
        ...state,
        screen: 'loop',
        run: newRun(selected.change, null),
        recorded: { ...recorded, confirming: null, notice: null },
      },
      effects: [{ type: 'resume-run', change: selected.change }],
    };
  }
  const choice: CompletionChoice = key === 'c' ? 'cleanup' : 'keep';
  const confirmed =
    recorded.confirming?.change === selected.change && recorded.confirming.choice === choice;
  if (!confirmed) {
    return {
      state: {
        ...state,
        recorded: { ...recorded, confirming: { change: selected.change, choice } },
      },
      effects: [],
    };
  }
  const text = `finishing ${selected.change} (${choice})…`;
  return {
    state: {
      ...state,
      recorded: { ...recorded, confirming: null, notice: { text, tone: 'dim' } },
    },
    effects: [{ type: 'finish-run', change: selected.change, choice }],
  };
}

export function withoutConfirming(state: UiState): UiState {
  if (state.recorded.confirming === null) return state;
  return { ...state, recorded: { ...state.recorded, confirming: null } };
}

/** The hint bar's part for the selected change's recorded run, and a pending confirmation. */
export function recordedRunHint(state: UiState): string | null {
  if (state.recorded.answering !== null) return answerHint(state.recorded.answering);
  const confirming = state.recorded.confirming;
  if (confirming !== null) {
    const key = confirming.choice === 'cleanup' ? 'c' : 'k';
    return confirming.choice === 'cleanup'
      ? `press ${key} again to finish ${confirming.change} with cleanup (back to your branch, work uncommitted) · any other key cancels`
      : `press ${key} again to finish ${confirming.change} with keep (its branch stays, the run ends) · any other key cancels`;
  }
  const selected = selectedMark(state);
  if (selected?.mark === 'kept') {
    return `kept: its work is on ralph/${selected.change}, not merged (\`git merge ralph/${selected.change}\`)`;
  }
  if (selected?.mark === 'blocked') {
    return `blocked: r answer its question here (or \`${answerCommand(selected.change)}\`) · c/k finish (cleanup/keep)`;
  }
  return selected === null ? null : 'r resume · c/k finish (cleanup/keep)';
}
