/**
 * The search behind the merge check (docs/git-protocol.md, "The merge check"): an order in which
 * several branches apply one after the other onto a start, each step merging one more branch
 * into what the steps before it made. Pure: the merging itself is the caller's `apply`.
 */

/** One step: `state` with `item` merged in, or null when that merge conflicts. */
export type ApplyStep<S> = (state: S, item: string) => Promise<S | null>;

export interface MergeOrderSearch<S> {
  /** The branches to order; tried first in this order (the order the user gave). */
  items: readonly string[];
  /** What the first branch is merged into (the user's work tree). */
  start: S;
  apply: ApplyStep<S>;
  /**
   * How many merges the search may ask for before giving up (null: no order found). Bounds the
   * worst case, where every order fails late; the first, greedy pass alone needs `items.length`.
   */
  maxSteps?: number;
}

/**
 * Depth first over the orders, the given order first (greedy: most sets of branches that do not
 * touch the same lines apply in any order, so the first pass usually finds one). A set of
 * branches that once led to a dead end is not tried again in another order: the cumulative
 * merge of the same branches gives the same files whatever the order in which they came, so
 * what failed after them fails again. Returns the order, or null when none applies cleanly
 * (or the step budget ran out).
 */
export async function findMergeOrder<S>(search: MergeOrderSearch<S>): Promise<string[] | null> {
  const { items, apply } = search;
  const budget = { left: search.maxSteps ?? defaultMaxSteps(items.length) };
  const deadEnds = new Set<string>();

  const extend = async (state: S, done: readonly string[]): Promise<string[] | null> => {
    if (done.length === items.length) return [...done];
    const key = setKey(done);
    if (deadEnds.has(key)) return null;
    for (const item of items) {
      if (done.includes(item)) continue;
      if (deadEnds.has(setKey([...done, item]))) continue;
      if (budget.left <= 0) return null;
      budget.left -= 1;
      const next = await apply(state, item);
      if (next === null) continue;
      const found = await extend(next, [...done, item]);
      if (found) return found;
    }
    deadEnds.add(key);
    return null;
  };

  return extend(search.start, []);
}

/** Enough for every subset to be tried once from each of its members, capped for many branches. */
function defaultMaxSteps(count: number): number {
  return Math.min(count * 2 ** Math.min(count, 10), 2000);
}

function setKey(items: readonly string[]): string {
  return [...items].sort().join('\0');
}
