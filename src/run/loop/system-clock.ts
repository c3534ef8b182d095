import { setTimeout as sleep } from 'node:timers/promises';
import type { Clock } from '../../core/clock.js';

/** The machine's clock: what every ralphtool process runs on (tests may give the loop another). */
export const systemClock: Clock = {
  now: () => Date.now(),
  async sleep(ms, signal) {
    try {
      await sleep(ms, undefined, { signal });
    } catch (error) {
      if (!signal.aborted) throw error;
    }
  },
};
