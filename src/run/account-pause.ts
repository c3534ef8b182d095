import type { AgentLimit } from '../agents/types.js';

/** One run's wait for a usage/rate limit, as the other runs on the same account see it. */
export interface PauseHold {
  /** The change whose run waits. */
  change: string;
  /** When its wait ends (ms since the epoch). */
  until: number;
  limit: AgentLimit;
}

/**
 * The usage-limit pause several runs in one process share (docs/contract.md, "Several changes
 * at once"): they use one account, so while one run of an agent kind waits out a limit, the
 * others of that kind start no new attempt (their running attempts go on; if those meet the
 * limit they wait too). Absent for a single run.
 */
export class AccountPause {
  private readonly holds = new Map<string, Set<PauseHold>>();
  private readonly listeners = new Set<() => void>();

  /** A run begins waiting out a limit of agent `kind`; the returned function ends it (once). */
  begin(kind: string, hold: PauseHold): () => void {
    let set = this.holds.get(kind);
    if (!set) this.holds.set(kind, (set = new Set()));
    set.add(hold);
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      set.delete(hold);
      for (const listener of [...this.listeners]) listener();
    };
  }

  /** The wait of another run than `change` on agent `kind` that lasts longest; null when none. */
  heldFor(kind: string, change: string): PauseHold | null {
    let longest: PauseHold | null = null;
    for (const hold of this.holds.get(kind) ?? []) {
      if (hold.change !== change && (longest === null || hold.until > longest.until)) {
        longest = hold;
      }
    }
    return longest;
  }

  /** Resolves once no other run waits on agent `kind` (at once when none does). */
  cleared(kind: string, change: string): Promise<void> {
    return new Promise((resolve) => {
      const check = (): void => {
        if (this.heldFor(kind, change) !== null) return;
        this.listeners.delete(check);
        resolve();
      };
      this.listeners.add(check);
      check();
    });
  }
}
