import type { Termination } from './ui-controller.js';

/** What SIGTERM does to a UI (`ralphtool`, and `ralphtool demo` on a terminal). */
export interface TermLeave {
  /** Aborted when the UI must close: nothing was left to stop, or a second SIGTERM came. */
  leave: AbortSignal;
  /** Whether SIGTERM closed the UI (the CLI then quits with 130). */
  terminated(): boolean;
  /** Stops listening for SIGTERM. */
  remove(): void;
}

/**
 * SIGTERM asks a live attempt to stop, like `q`; the UI then shows the completion choice. Where
 * nothing runs (that choice, a usage-limit wait, a finished loop, a screen with no run), or at a
 * second SIGTERM, nobody is there to answer: the UI closes, the run left for `resume` /
 * `finish` (ui-controller.ts, `terminate`).
 */
export function leaveOnTerm(controller: { terminate(): Promise<Termination> }): TermLeave {
  const leave = new AbortController();
  let terminated = false;
  const leaveNow = (): void => {
    terminated = true;
    leave.abort();
  };
  const onTerm = (): void => {
    void controller.terminate().then((how) => {
      if (how !== 'stopping') leaveNow();
    }, leaveNow);
  };
  process.on('SIGTERM', onTerm);
  return {
    leave: leave.signal,
    terminated: () => terminated,
    remove: () => {
      process.off('SIGTERM', onTerm);
    },
  };
}
