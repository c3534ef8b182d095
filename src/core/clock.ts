/**
 * The loop's time: what it reads as now and how it waits. Given to the loop (LoopDeps.clock)
 * rather than read from the machine, so that a test of a limit wait, a deadline or an agent's
 * reset moves time on instead of sleeping through it; ralphtool itself runs on the system clock.
 */
export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number;
  /** Resolves after `ms`, or as soon as `signal` is aborted (resolves then too, never rejects). */
  sleep(ms: number, signal: AbortSignal): Promise<void>;
}
