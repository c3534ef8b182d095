/** The small synchronisation pieces several runs in one process need (run/many.ts). */

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

/**
 * Admits callers one at a time in an order known only later (the merge check's): until the order
 * is set nobody is admitted; then each named caller in turn, once it has asked, and after the
 * previous one has left. The order must name only callers that will ask (or have asked).
 */
export class TurnQueue {
  private order: readonly string[] | null = null;
  private at = 0;
  private busy = false;
  private readonly waiting = new Map<string, () => void>();

  /** The turns, once known; callers that asked and are not named go last, as they asked. */
  setOrder(order: readonly string[]): void {
    const asked = [...this.waiting.keys()].filter((name) => !order.includes(name));
    this.order = [...order, ...asked];
    this.admitNext();
  }

  enter(name: string): Promise<() => void> {
    if (this.order !== null && !this.order.includes(name)) this.order = [...this.order, name];
    return new Promise((resolve) => {
      this.waiting.set(name, () => {
        let done = false;
        resolve(() => {
          if (done) return;
          done = true;
          this.busy = false;
          this.at += 1;
          this.admitNext();
        });
      });
      this.admitNext();
    });
  }

  private admitNext(): void {
    if (this.busy || this.order === null) return;
    const name = this.order[this.at];
    const admit = name === undefined ? undefined : this.waiting.get(name);
    if (name === undefined || admit === undefined) return;
    this.waiting.delete(name);
    this.busy = true;
    admit();
  }
}
