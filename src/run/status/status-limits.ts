import { resumeCommand, type Budget, type BudgetLimit } from '../../core/budget.js';
import type { RunState } from '../../checkpoint/index.js';

/** The budget a run recorded (docs/contract.md, "Budgets"); null when it has none. */
export function recordedBudget(state: RunState): Budget | null {
  const budget = state.budget;
  if (!budget || (budget.maxCostUsd === null && budget.maxStoryCostUsd === null)) return null;
  return budget;
}

/**
 * `status`'s `next` for a run a budget, its retries or `--max-duration` stopped (kept
 * incomplete, or the completion question unanswered): resuming as it is would stop again at once
 * after a budget or the retries, so the command raises what is used up. Null for any other run.
 */
export function limitNext(change: string, state: RunState, rt: string): string | null {
  if (state.step?.op === 'cleanup') return null;
  const end = `(or end it: ${rt} finish ${change} --cleanup|--keep)`;
  if (state.outcome === 'budget') {
    return `the budget is spent: ${resumeCommand(change, 'budget', spentLimit(state), rt)}   ${end}`;
  }
  if (state.outcome === 'max-retries') {
    return `a story used up its retries: ${resumeCommand(change, 'max-retries', null, rt)}   ${end}`;
  }
  if (state.outcome === 'time-limit') {
    return `stopped at --max-duration: ${rt} resume ${change}   ${end}`;
  }
  return null;
}

/** Which budget is spent: the run's, else that of a story not done yet. */
function spentLimit(state: RunState): BudgetLimit | null {
  const budget = recordedBudget(state);
  if (budget === null) return null;
  if (budget.maxCostUsd !== null && state.costUsd >= budget.maxCostUsd) return 'max-cost';
  const perStory = budget.maxStoryCostUsd;
  if (
    perStory !== null &&
    Object.values(state.stories).some((s) => !s.completed && s.costUsd >= perStory)
  ) {
    return 'max-story-cost';
  }
  return null;
}
