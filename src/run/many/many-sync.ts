/** The small synchronisation pieces several runs in one process need (run/many.ts). */

/** At most `size` holders at once; the others wait in the order they asked. */
export class Semaphore {
  private free: number;
  private readonly waiting: (() => void)[] = [];

  constructor(size: number) {
    this.free = size;
  }

  /** Resolves with the function that gives the place back (once; later calls do nothing). */
  async acquire(): Promise<() => void> {
    if (this.free > 0) this.free -= 1;
    else await new Promise<void>((resolve) => this.waiting.push(resolve));
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const next = this.waiting.shift();
      if (next) next();
      else this.free += 1;
    };
  }
}

/** Resolves once `count` arrivals were made (at once for a count of 0). */
export class EndBarrier {
  private left: number;
  private open!: () => void;
  private readonly opened = new Promise<void>((resolve) => {
    this.open = resolve;
  });

  constructor(count: number) {
    this.left = count;
    if (count <= 0) this.open();
  }

  arrive(): void {
    this.left -= 1;
    if (this.left === 0) this.open();
  }

  allEnded(): Promise<void> {
    return this.opened;
  }
}

/** One holder at a time, in the order they came; `enter` resolves with the way out. */
export class SerialQueue {
  private tail: Promise<void> = Promise.resolve();

  async enter(): Promise<() => void> {
    let leave!: () => void;
    const left = new Promise<void>((resolve) => {
      leave = resolve;
    });
    const before = this.tail;
    this.tail = before.then(() => left);
    await before;
    let done = false;
    return () => {
      if (done) return;
      done = true;
      leave();
    };
  }
}
