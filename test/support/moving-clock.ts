import { setImmediate } from 'node:timers/promises';
import type { Clock } from '../../src/core/clock.js';

/**
 * The loop's clock for in-process tests: real time plus everything it has slept, so that a
 * limit wait, a reset or a `--max-duration` deadline is passed at once instead of waited for.
 * A wait still yields to the event loop, and one asked to stop before it starts does not move
 * time on (as the system clock's sleep ends at once).
 */
export class MovingClock implements Clock {
  /** Each wait, in milliseconds, in order. */
  readonly slept: number[] = [];
  private ahead = 0;

  now(): number {
    return Date.now() + this.ahead;
  }

  async sleep(ms: number, signal: AbortSignal): Promise<void> {
    if (signal.aborted) return;
    this.ahead += ms;
    this.slept.push(ms);
    await setImmediate();
  }
}
