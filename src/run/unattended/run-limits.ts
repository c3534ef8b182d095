import {
  attemptAllowance,
  budgetReached,
  deadlinePassed,
  hasBudget,
  mergeBudget,
  NO_BUDGET,
  runDeadline,
  type Budget,
  type BudgetReached,
  type Spent,
} from '../../core/budget.js';
import type { ParkedOutcome } from '../../core/loop.js';
import { formatAmount, formatCost, formatDuration } from '../../format/units.js';
import type { LoopContext, LoopSetup } from '../loop-types.js';

/** The budgets and the deadline of one invocation of the loop (docs/contract.md, "Budgets"). */
export interface RunLimits {
  /** When `--max-duration` ends this invocation (epoch ms), or null: a usage-limit wait's `notAfter`. */
  readonly deadline: number | null;
  /**
   * Warns once, after `run.started`, when a budget is set and an agent of the run (the primary,
   * then its fallbacks) reports no cost: what the budget counts, and what it cannot.
   */
  announce(agents: readonly string[]): void;
  /**
   * At each attempt boundary: the outcome that ends the run now (after its `limit.reached`), or
   * null to go on.
   */
  beforeAttempt(storyId: string): ParkedOutcome | null;
  /** The agent stopped at the allowance it was given: the run ends (after its `limit.reached`). */
  spentBy(storyId: string): ParkedOutcome;
}

/**
 * Settles the run's budget (the recorded one, replaced by what this command line gives) and
 * records it, so that a resume after any stop keeps it; `started` is when this invocation began.
 */
export async function prepareRunLimits(
  setup: LoopSetup,
  deps: LoopContext,
  started: number,
): Promise<RunLimits> {
  const { run } = deps;
  const { options } = setup;
  const given: Budget = {
    maxCostUsd: options.maxCostUsd,
    maxStoryCostUsd: options.maxStoryCostUsd,
  };
  const { budget, changed } = mergeBudget(run.state.budget, given);
  const recorded = run.state.budget ?? NO_BUDGET;
  if (
    budget.maxCostUsd !== recorded.maxCostUsd ||
    budget.maxStoryCostUsd !== recorded.maxStoryCostUsd
  ) {
    await run.recordBudget(budget);
  }
  for (const c of changed) {
    const so = c.limit === 'max-cost' ? `; ${formatCost(run.state.costUsd)} spent so far` : '';
    deps.notice?.(
      `--${c.limit} is now ${formatAmount(c.to)} (the run had ${formatAmount(c.from)}${so})`,
    );
  }
  const deadline = runDeadline(started, options.maxDurationMs);
  const spent = (storyId: string): Spent => ({
    runUsd: run.state.costUsd,
    storyUsd: run.progressOf(storyId).costUsd,
  });
  const reached = (limit: 'max-cost' | 'max-story-cost' | 'max-duration', message: string) => {
    deps.emit({ type: 'limit.reached', limit, message });
  };
  return {
    deadline,
    announce(agents) {
      const message = hasBudget(budget) ? uncountedWarning(budgetFlags(budget), agents) : null;
      if (message !== null) deps.emit({ type: 'error', message, fatal: false });
    },
    beforeAttempt(storyId) {
      if (deadlinePassed(deadline, deps.clock.now())) {
        const ms = options.maxDurationMs ?? 0;
        reached(
          'max-duration',
          `ran ${formatDuration(deps.clock.now() - started)} of --max-duration ${formatDuration(ms)}`,
        );
        return 'time-limit';
      }
      const over = budgetReached(budget, spent(storyId));
      if (over === null) return null;
      reached(over.limit, budgetMessage(over, storyId));
      return 'budget';
    },
    spentBy(storyId) {
      const now = spent(storyId);
      // Claude Code stops past its allowance, which was rounded down: the budget is spent, or
      // within a hundredth of a cent of it (then the one with the least left is the one).
      const limit =
        budgetReached(budget, now)?.limit ?? attemptAllowance(budget, now)?.limit ?? 'max-cost';
      const figures = budgetMessage(figuresOf(limit, budget, now), storyId);
      reached(limit, `${figures} (the agent stopped at the budget it was given)`);
      return 'budget';
    },
  };
}

/** "spent $4.12 of --max-cost $4.00", "story 2 spent $1.20 of --max-story-cost $1.00". */
function budgetMessage(over: BudgetReached, storyId: string): string {
  const who = over.limit === 'max-story-cost' ? `story ${storyId} ` : '';
  return `${who}spent ${formatCost(over.spentUsd)} of --${over.limit} ${formatAmount(over.maxUsd)}`;
}

function figuresOf(limit: BudgetReached['limit'], budget: Budget, spent: Spent): BudgetReached {
  return limit === 'max-cost'
    ? { limit, spentUsd: spent.runUsd, maxUsd: budget.maxCostUsd ?? 0 }
    : { limit, spentUsd: spent.storyUsd, maxUsd: budget.maxStoryCostUsd ?? 0 };
}

function budgetFlags(budget: Budget): string {
  return [
    ...(budget.maxCostUsd !== null ? ['--max-cost'] : []),
    ...(budget.maxStoryCostUsd !== null ? ['--max-story-cost'] : []),
  ].join(' and ');
}

/** The agents whose attempts report what they cost: Claude Code and OpenCode. */
const REPORTS_COST: ReadonlySet<string> = new Set(['claude', 'opencode']);

/**
 * What a budget counts when some of the run's agents (the primary, then its fallbacks) report
 * no cost: nothing at all, or only the attempts of the ones that do. Null when all of them do.
 */
function uncountedWarning(flags: string, agents: readonly string[]): string | null {
  const silent = agents.filter((agent) => !REPORTS_COST.has(agent));
  if (silent.length === 0) return null;
  const counted = agents.filter((agent) => REPORTS_COST.has(agent));
  const silentSaid = `${silent.join(' and ')} ${silent.length > 1 ? 'report' : 'reports'} no cost`;
  if (counted.length === 0) {
    return `${flags} cannot be checked: the ${silent.join(' and ')} agent ${silent.length > 1 ? 'report' : 'reports'} no cost, so nothing is counted against the budget; bound the run with --max-duration instead`;
  }
  return `${flags} counts only the attempts of ${counted.join(' and ')}: ${silentSaid}, so ${silent.length > 1 ? 'their' : 'its'} attempts add nothing to the budget; bound the run with --max-duration too`;
}
