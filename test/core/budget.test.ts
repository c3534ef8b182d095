import { describe, expect, it } from 'vitest';
import {
  attemptAllowance,
  budgetReached,
  deadlinePassed,
  mergeBudget,
  NO_BUDGET,
  runDeadline,
} from '../../src/core/budget.js';

// docs/contract.md, "Budgets": the check before each attempt, what Claude Code is given, and
// what `resume` does with the recorded budget.

describe('budgetReached', () => {
  it('never stops a run without a budget, whatever was spent', () => {
    expect(budgetReached(NO_BUDGET, { runUsd: 1e6, storyUsd: 1e6 })).toBeNull();
  });

  it('stops once the run has spent its --max-cost, at or past it', () => {
    const budget = { maxCostUsd: 4, maxStoryCostUsd: null };
    expect(budgetReached(budget, { runUsd: 3.99, storyUsd: 3.99 })).toBeNull();
    expect(budgetReached(budget, { runUsd: 4, storyUsd: 0 })).toEqual({
      limit: 'max-cost',
      spentUsd: 4,
      maxUsd: 4,
    });
    expect(budgetReached(budget, { runUsd: 4.12, storyUsd: 0 })).toMatchObject({
      limit: 'max-cost',
      spentUsd: 4.12,
    });
  });

  it('stops when the story about to be tried has spent its --max-story-cost', () => {
    const budget = { maxCostUsd: null, maxStoryCostUsd: 1 };
    expect(budgetReached(budget, { runUsd: 50, storyUsd: 0.5 })).toBeNull();
    expect(budgetReached(budget, { runUsd: 50, storyUsd: 1.2 })).toEqual({
      limit: 'max-story-cost',
      spentUsd: 1.2,
      maxUsd: 1,
    });
  });

  it("names the run's budget when both are spent (it ends every story)", () => {
    const budget = { maxCostUsd: 2, maxStoryCostUsd: 1 };
    expect(budgetReached(budget, { runUsd: 2, storyUsd: 1 })).toMatchObject({ limit: 'max-cost' });
  });
});

describe('attemptAllowance', () => {
  it('is null without a budget: Claude Code gets no --max-budget-usd', () => {
    expect(attemptAllowance(NO_BUDGET, { runUsd: 1, storyUsd: 1 })).toBeNull();
  });

  it("is the smaller of the run's and the story's remainder, with the budget that sets it", () => {
    const budget = { maxCostUsd: 5, maxStoryCostUsd: 1 };
    expect(attemptAllowance(budget, { runUsd: 3.1, storyUsd: 0.25 })).toEqual({
      usd: 0.75,
      limit: 'max-story-cost',
    });
    expect(attemptAllowance(budget, { runUsd: 4.6, storyUsd: 0.25 })).toEqual({
      usd: 0.4,
      limit: 'max-cost',
    });
  });

  it('rounds down to a hundredth of a cent, never above what is left', () => {
    const budget = { maxCostUsd: 0.3, maxStoryCostUsd: null };
    // 0.3 - 0.1 is 0.19999999999999998 in floating point: still 0.2 left.
    expect(attemptAllowance(budget, { runUsd: 0.1, storyUsd: 0 })?.usd).toBe(0.2);
    expect(attemptAllowance(budget, { runUsd: 0.12345678, storyUsd: 0 })?.usd).toBe(0.1765);
    for (const spent of [0, 0.0125, 0.05, 0.1, 0.17, 0.2999]) {
      const allowance = attemptAllowance(budget, { runUsd: spent, storyUsd: 0 });
      expect(allowance?.usd).toBeLessThanOrEqual(0.3 - spent + 1e-12);
    }
  });

  it('gives at least a hundredth of a cent (Claude Code needs an amount above 0)', () => {
    const budget = { maxCostUsd: 1, maxStoryCostUsd: null };
    expect(attemptAllowance(budget, { runUsd: 0.99999, storyUsd: 0 })?.usd).toBe(0.0001);
  });
});

describe('mergeBudget', () => {
  it('records what the command line gives at the start', () => {
    expect(mergeBudget(undefined, { maxCostUsd: 5, maxStoryCostUsd: null })).toEqual({
      budget: { maxCostUsd: 5, maxStoryCostUsd: null },
      changed: [],
    });
  });

  it('keeps the recorded budget when resume gives none (an old state file has none)', () => {
    const recorded = { maxCostUsd: 5, maxStoryCostUsd: 1 };
    expect(mergeBudget(recorded, NO_BUDGET)).toEqual({ budget: recorded, changed: [] });
    expect(mergeBudget(undefined, NO_BUDGET)).toEqual({ budget: NO_BUDGET, changed: [] });
  });

  it('replaces each budget given, raised or lowered, and says which changed', () => {
    const recorded = { maxCostUsd: 5, maxStoryCostUsd: 1 };
    expect(mergeBudget(recorded, { maxCostUsd: 8, maxStoryCostUsd: null })).toEqual({
      budget: { maxCostUsd: 8, maxStoryCostUsd: 1 },
      changed: [{ limit: 'max-cost', from: 5, to: 8 }],
    });
    expect(mergeBudget(recorded, { maxCostUsd: 5, maxStoryCostUsd: 0.5 })).toEqual({
      budget: { maxCostUsd: 5, maxStoryCostUsd: 0.5 },
      changed: [{ limit: 'max-story-cost', from: 1, to: 0.5 }],
    });
  });

  it('adds a budget the run did not have without calling it a change', () => {
    const recorded = { maxCostUsd: null, maxStoryCostUsd: 1 };
    expect(mergeBudget(recorded, { maxCostUsd: 3, maxStoryCostUsd: null })).toEqual({
      budget: { maxCostUsd: 3, maxStoryCostUsd: 1 },
      changed: [],
    });
  });
});

describe('the --max-duration deadline', () => {
  it('is null without --max-duration, and never passes then', () => {
    expect(runDeadline(1_000, null)).toBeNull();
    expect(deadlinePassed(null, Number.MAX_SAFE_INTEGER)).toBe(false);
  });

  it('is the start plus the duration, passed from that instant on', () => {
    const deadline = runDeadline(1_000, 60_000);
    expect(deadline).toBe(61_000);
    expect(deadlinePassed(deadline, 60_999)).toBe(false);
    expect(deadlinePassed(deadline, 61_000)).toBe(true);
  });
});
