import { useRef } from 'react';
import { userMessageOf } from '../core/error-details.js';
import type { TimedRunEvent } from '../core/events.js';
import type { ManyRunsHandle, UiController } from './controller.js';
import type { Transition, UiState } from './state/app-state.js';
import {
  dashboardAccounts,
  dashboardEnded,
  dashboardEventsArrived,
  dashboardNotice,
  mergeChecked,
} from './state/dashboard.js';
import { useBatched } from './use-batched-events.js';

/** How often the accounts' windows are read again while runs go on (other processes write them). */
export const ACCOUNT_REFRESH_MS = 2_000;

/** The events after which an account's window has changed: read it again at once. */
const ACCOUNT_EVENTS: ReadonlySet<string> = new Set([
  'agent.limited',
  'limit.resumed',
  'agent.switched',
  'story.completed',
]);

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

  // The accounts' windows (controller.accounts), one read at a time.
  const reading = useRef(false);
  const readAccounts = (): void => {
    if (controller.accounts === undefined || reading.current) return;
    reading.current = true;
    controller.accounts().then(
      (accounts) => {
        reading.current = false;
        update((s) => dashboardAccounts(s, accounts));
      },
      () => {
        // The window is advice: one that cannot be read leaves the last one shown.
        reading.current = false;
      },
    );
  };

  const events = useBatched<{ change: string; event: TimedRunEvent }>((batch) => {
    if (batch.some((b) => ACCOUNT_EVENTS.has(b.event.type))) readAccounts();
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
      readAccounts();
      const timer = setInterval(readAccounts, ACCOUNT_REFRESH_MS);
      // Never what keeps ralphtool alive once the UI has gone.
      timer.unref();
      const ended = (outcome: Parameters<typeof dashboardEnded>[1]): void => {
        clearInterval(timer);
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
