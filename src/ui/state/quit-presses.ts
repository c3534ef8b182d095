/**
 * The stop key: the first press asks the loop to stop, and three presses within
 * three seconds leave at once. Time is passed in so the rule is testable. Pure.
 */
export const FORCE_QUIT_PRESSES = 3;
export const FORCE_QUIT_WINDOW_MS = 3000;

export interface QuitPresses {
  /** Times (ms) of the recent presses, oldest first. */
  times: number[];
}

export const noPresses: QuitPresses = { times: [] };

export type QuitDecision = 'stop' | 'again' | 'force-quit';

export function pressQuit(
  presses: QuitPresses,
  now: number,
  alreadyStopping: boolean,
): { presses: QuitPresses; decision: QuitDecision } {
  const times = [...presses.times.filter((t) => now - t < FORCE_QUIT_WINDOW_MS), now];
  if (times.length >= FORCE_QUIT_PRESSES) return { presses: { times }, decision: 'force-quit' };
  return { presses: { times }, decision: alreadyStopping ? 'again' : 'stop' };
}

/** How many more presses would quit at once, counting only presses still in the window. */
export function pressesLeft(presses: QuitPresses, now: number): number {
  const recent = presses.times.filter((t) => now - t < FORCE_QUIT_WINDOW_MS).length;
  return Math.max(1, FORCE_QUIT_PRESSES - recent);
}
