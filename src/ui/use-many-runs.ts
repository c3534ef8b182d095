import { useRef } from 'react';
import { userMessageOf } from '../core/error-details.js';
import type { TimedRunEvent } from '../core/events.js';
import type { ManyRunsHandle, UiController } from './controller.js';
import type { Transition, UiState } from './state/app-state.js';
import {
  dashboardEnded,
  dashboardEventsArrived,
  dashboardNotice,
  mergeChecked,
} from './state/dashboard.js';
import { useBatched } from './use-batched-events.js';

/**
 * Several runs started together from the change list (the dashboard): starts them through the
 * controller and folds what they tell into the UI state, each change's events batched as a
 * single run's are. `handle` is the live set of runs (null when none), for stop and the choices.
 */
export function useManyRuns(
  controller: UiController,
  batchMs: number,
  transition: (step: (s: UiState) => Transition) => void,
): { start: (changes: readonly string[]) => void; handle: { current: ManyRunsHandle | null } } {
  const handle = useRef<ManyRunsHandle | null>(null);
  const update = (step: (s: UiState) => UiState): void =>
    transition((s) => ({ state: step(s), effects: [] }));

  const events = useBatched<{ change: string; event: TimedRunEvent }>((batch) => {
    transition((s) => {
      let next: Transition = { state: s, effects: [] };
      for (const change of new Set(batch.map((b) => b.change))) {
        const mine = batch.filter((b) => b.change === change).map((b) => b.event);
        const t = dashboardEventsArrived(next.state, change, mine);
        next = { state: t.state, effects: [...next.effects, ...t.effects] };
      }
      return next;
    });
  }, batchMs);

  const start = (changes: readonly string[]): void => {
    try {
      const runs = controller.startRuns(changes, {
        event: (change, event) => events.push({ change, event }),
        mergeChecked: (report) => {
          events.flush();
          update((s) => mergeChecked(s, report));
        },
        notice: (change, message) => update((s) => dashboardNotice(s, change, message)),
      });
      handle.current = runs;
      const ended = (outcome: Parameters<typeof dashboardEnded>[1]): void => {
        events.flush();
        if (handle.current === runs) handle.current = null;
        update((s) => dashboardEnded(s, outcome));
      };
      runs.done.then(ended, (error: unknown) => ended({ error: userMessageOf(error) }));
    } catch (error) {
      update((s) => dashboardEnded(s, { error: userMessageOf(error) }));
    }
  };
  return { start, handle };
}
