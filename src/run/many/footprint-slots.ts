import { pickNextChange, type Footprint, type NextChange } from '../../core/footprint.js';

/**
 * The places of several runs (`--parallel`), given by footprint (core/footprint.ts): when a
 * place is free, the first waiting change that shares no path with a running one starts; one
 * that does waits while another can go, and starts anyway when only such changes are left.
 */
export class FootprintSlots {
  private free: number;
  /** The changes not started yet, in the order given. */
  private readonly waiting: string[];
  private readonly running = new Set<string>();
  /** Started changes whose `acquire` has not been called yet. */
  private readonly ready = new Set<string>();
  private readonly wakers = new Map<string, () => void>();

  /** Every change waits from the start, so the first choices already see them all. */
  constructor(
    size: number,
    order: readonly string[],
    private readonly footprints: ReadonlyMap<string, Footprint>,
    /** Told of each change started out of the order given, or beside one it overlaps. */
    private readonly started: (next: NextChange) => void,
  ) {
    this.free = Math.max(1, size);
    this.waiting = [...order];
    this.dispatch();
  }

  /** Resolves when `change` may start, with the function that gives its place back (once). */
  async acquire(change: string): Promise<() => void> {
    if (this.ready.has(change)) this.ready.delete(change);
    else await new Promise<void>((resolve) => this.wakers.set(change, resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.running.delete(change);
      this.free += 1;
      this.dispatch();
    };
  }

  private dispatch(): void {
    while (this.free > 0) {
      const next = pickNextChange(this.waiting, [...this.running], this.footprints);
      if (next === null) return;
      this.waiting.splice(this.waiting.indexOf(next.change), 1);
      this.running.add(next.change);
      this.free -= 1;
      if (next.overlap !== null || next.passed.length > 0) this.started(next);
      const wake = this.wakers.get(next.change);
      if (wake === undefined) {
        this.ready.add(next.change);
      } else {
        this.wakers.delete(next.change);
        wake();
      }
    }
  }
}
