// The run's budgets (docs/contract.md, "Budgets"): pure decisions on figures the run state keeps.

/** The cost budgets a run holds to; null = none. Recorded in the run state, kept by `resume`. */
export interface Budget {
  maxCostUsd: number | null;
  maxStoryCostUsd: number | null;
}

export const NO_BUDGET: Budget = { maxCostUsd: null, maxStoryCostUsd: null };

export type BudgetLimit = 'max-cost' | 'max-story-cost';

/** What the run and the story about to be tried have spent so far (the ledger in the run state). */
export interface Spent {
  runUsd: number;
  storyUsd: number;
}

/** A budget that is spent: which one, what was spent and what it allowed. */
export interface BudgetReached {
  limit: BudgetLimit;
  spentUsd: number;
  maxUsd: number;
}

/**
 * The check before each attempt: the run's budget first (it ends every story), then the story's.
 * Null while both have something left.
 */
export function budgetReached(budget: Budget, spent: Spent): BudgetReached | null {
  if (budget.maxCostUsd !== null && spent.runUsd >= budget.maxCostUsd) {
    return { limit: 'max-cost', spentUsd: spent.runUsd, maxUsd: budget.maxCostUsd };
  }
  if (budget.maxStoryCostUsd !== null && spent.storyUsd >= budget.maxStoryCostUsd) {
    return { limit: 'max-story-cost', spentUsd: spent.storyUsd, maxUsd: budget.maxStoryCostUsd };
  }
  return null;
}

/** The smallest amount given to an agent (Claude Code's `--max-budget-usd`): a hundredth of a cent. */
export const MIN_ALLOWANCE_USD = 0.0001;

/**
 * What one attempt may spend so that it cannot overshoot (Claude Code's `--max-budget-usd`): the
 * smaller of what is left of the run's and the story's budget, rounded down to a hundredth of a
 * cent (never more than is left), at least that hundredth; null without a budget. `limit` is the
 * budget that set it, the one an agent stopping at it has spent.
 */
export function attemptAllowance(
  budget: Budget,
  spent: Spent,
): { usd: number; limit: BudgetLimit } | null {
  const left: { usd: number; limit: BudgetLimit }[] = [];
  if (budget.maxCostUsd !== null) {
    left.push({ usd: budget.maxCostUsd - spent.runUsd, limit: 'max-cost' });
  }
  if (budget.maxStoryCostUsd !== null) {
    left.push({ usd: budget.maxStoryCostUsd - spent.storyUsd, limit: 'max-story-cost' });
  }
  const least = left.reduce<(typeof left)[number] | null>(
    (min, l) => (min === null || l.usd < min.usd ? l : min),
    null,
  );
  if (least === null) return null;
  // Rounded on integers, so that 0.3 - 0.1 is not 0.19999999999999998 → 0.1999.
  const units = Math.floor(Math.round(least.usd * 1e8) / 1e4);
  return { usd: Math.max(MIN_ALLOWANCE_USD, units / 1e4), limit: least.limit };
}

/**
 * The budget of a run: what the command line gives replaces what the run state recorded, each
 * budget on its own (`resume --max-cost 8` keeps the recorded `--max-story-cost`). `changed`
 * names the recorded budgets the command line replaced (raised or lowered), for a notice.
 */
export function mergeBudget(
  recorded: Budget | undefined,
  given: Budget,
): { budget: Budget; changed: { limit: BudgetLimit; from: number; to: number }[] } {
  const before = recorded ?? NO_BUDGET;
  const budget: Budget = {
    maxCostUsd: given.maxCostUsd ?? before.maxCostUsd,
    maxStoryCostUsd: given.maxStoryCostUsd ?? before.maxStoryCostUsd,
  };
  const changed: { limit: BudgetLimit; from: number; to: number }[] = [];
  if (before.maxCostUsd !== null && budget.maxCostUsd !== before.maxCostUsd) {
    changed.push({ limit: 'max-cost', from: before.maxCostUsd, to: budget.maxCostUsd ?? 0 });
  }
  if (before.maxStoryCostUsd !== null && budget.maxStoryCostUsd !== before.maxStoryCostUsd) {
    changed.push({
      limit: 'max-story-cost',
      from: before.maxStoryCostUsd,
      to: budget.maxStoryCostUsd ?? 0,
    });
  }
  return { budget, changed };
}

/** Whether a budget is set at all. */
export function hasBudget(budget: Budget): boolean {
  return budget.maxCostUsd !== null || budget.maxStoryCostUsd !== null;
}

/**
 * When `--max-duration` ends this invocation (epoch ms), or null without one. The usage-limit
 * wait takes it as its `notAfter`: a wait never runs past the run's own deadline.
 */
export function runDeadline(startedMs: number, maxDurationMs: number | null): number | null {
  return maxDurationMs === null ? null : startedMs + maxDurationMs;
}

/** The check at each attempt boundary: true once the deadline has come. */
export function deadlinePassed(deadline: number | null, nowMs: number): boolean {
  return deadline !== null && nowMs >= deadline;
}

/**
 * The command that carries a run on after it stopped (`ralphtool` is the caller's way to name
 * it): after a spent budget it raises that budget (`--max-cost <more>`), and after a story used
 * up its retries it raises them (`--max-retries <more>`), since a resume goes on with the run's
 * recorded budget and retries and would stop again at once; otherwise a plain resume.
 */
export function resumeCommand(
  change: string,
  outcome: string | null,
  limit: BudgetLimit | null,
  rt = 'ralphtool',
): string {
  const raise =
    outcome === 'budget'
      ? ` --${limit ?? 'max-cost'} <more>`
      : outcome === 'max-retries'
        ? ' --max-retries <more>'
        : '';
  return `${rt} resume ${change}${raise}`;
}
