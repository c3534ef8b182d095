import { afterEach, describe, expect, it } from 'vitest';
import { LoopHarness } from '../support/loop-harness.js';
import { loopTypes, ofType, single, stories, succeed } from './helpers.js';

// docs/contract.md, "Budgets": the loop's decisions on the in-process harness, with the fake
// agent in Claude Code's format (each result reports `total_cost_usd`, $0.0125 unless a `cost`
// step says otherwise; past the allowance it was given it stops as Claude Code does).

const CHANGE = 'budgeted';
const REF = `refs/ralphtool/${CHANGE}/attempts`;

let fixture: LoopHarness | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

/** A successful attempt that reports `usd` as its cost. */
function succeedFor(usd: number, file: string): Record<string, unknown>[] {
  return [{ cost: usd }, ...succeed(file, `${file}\n`)];
}

interface Ledger {
  costUsd: number;
  budget?: { maxCostUsd: number | null; maxStoryCostUsd: number | null };
  stories: Record<string, { attempts: number; completed: boolean; costUsd: number }>;
}

describe('the loop: --max-cost', () => {
  it('stops before the next attempt once the budget is spent, outcome budget (exit 5)', async () => {
    fixture = new LoopHarness(CHANGE, stories(3)).scenario({
      '1-1': succeedFor(0.3, 'src/one.txt'),
      // Exactly what was left ($0.20): Claude Code stops only past its allowance.
      '2-1': succeedFor(0.2, 'src/two.txt'),
      '3-*': succeedFor(0.1, 'src/three.txt'),
    });
    const f = fixture;
    const result = await f.run({
      completion: 'keep',
      format: 'claude',
      options: { maxCostUsd: 0.5 },
    });
    expect(result.exitCode).toBe(5);
    expect(result.outcome).toBe('budget');
    // The completion choice as usual, about outcome budget.
    expect(result.asked).toEqual(['budget']);
    const events = result.events();
    // Story 3 never started: $0.50 was spent of $0.50 once story 2 was accepted.
    expect(ofType(events, 'story.started').map((e) => e.storyId)).toEqual(['1', '2']);
    expect(single(events, 'limit.reached')).toEqual({
      type: 'limit.reached',
      limit: 'max-cost',
      message: 'spent $0.50 of --max-cost $0.50',
    });
    expect(loopTypes(events).slice(-3)).toEqual([
      'limit.reached',
      'run.awaiting-choice',
      'run.finished',
    ]);
    expect(single(events, 'run.finished')).toMatchObject({
      outcome: 'budget',
      choice: 'keep',
      storiesCompleted: 2,
    });
    // At its last checkpoint, kept resumable, with the budget and the ledger recorded.
    const state = f.state() as unknown as Ledger & { status: string; outcome: string };
    expect(state).toMatchObject({
      status: 'active',
      outcome: 'budget',
      budget: { maxCostUsd: 0.5, maxStoryCostUsd: null },
    });
    expect(state.costUsd).toBeCloseTo(0.5, 10);
    expect(f.subjects('ralph/budgeted')).toEqual(
      expect.arrayContaining(['checkpoint: 1', 'checkpoint: 2']),
    );
    expect(f.exists('src/three.txt')).toBe(false);
  });

  it('with the allowance: Claude Code stops inside the attempt that would pass the budget', async () => {
    fixture = new LoopHarness(CHANGE, stories(1)).scenario({
      '1-*': [{ cost: 0.2 }, { signal: 'FAILED: not yet' }],
    });
    const f = fixture;
    const result = await f.run({
      completion: 'keep',
      format: 'claude',
      maxRetries: 10,
      options: { maxCostUsd: 0.5 },
    });
    expect(result.outcome).toBe('budget');
    const events = result.events();
    // $0.20, $0.40, then the third attempt had $0.10 and stopped at $0.20: never a fourth.
    expect(ofType(events, 'story.started')).toHaveLength(3);
    expect(single(events, 'limit.reached').message).toBe(
      'spent $0.60 of --max-cost $0.50 (the agent stopped at the budget it was given)',
    );
    // The two failures count; the attempt the budget ended does not.
    expect((f.state() as unknown as Ledger).stories['1']).toMatchObject({ attempts: 2 });
  });

  it('counts failed attempts in the ledger too: a story failing at $0.25 a try stops after two', async () => {
    fixture = new LoopHarness(CHANGE, stories(1)).scenario({
      '1-*': [{ cost: 0.25 }, { signal: 'FAILED: not yet' }],
    });
    const f = fixture;
    const result = await f.run({
      completion: 'keep',
      format: 'claude',
      maxRetries: 10,
      options: { maxCostUsd: 0.5 },
    });
    expect(result.outcome).toBe('budget');
    const events = result.events();
    // $0.25, $0.50: the third attempt never started.
    expect(ofType(events, 'story.started')).toHaveLength(2);
    expect(ofType(events, 'attempt.failed')).toHaveLength(2);
    expect(single(events, 'limit.reached').message).toBe('spent $0.50 of --max-cost $0.50');
    expect((f.state() as unknown as Ledger).stories['1']).toMatchObject({ attempts: 2 });
  });

  it('an agent that reports no cost gets one warning and is never stopped by the budget', async () => {
    fixture = new LoopHarness(CHANGE, stories(2)).scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
      '2-1': succeed('src/two.txt', 'two\n'),
    });
    const result = await fixture.run({
      completion: 'keep',
      format: 'codex',
      options: { maxCostUsd: 0.01 },
    });
    expect(result.outcome).toBe('complete');
    const events = result.events();
    const warnings = ofType(events, 'error').filter((e) => e.message.includes('--max-cost'));
    expect(warnings).toEqual([
      {
        type: 'error',
        message: expect.stringContaining('the codex agent reports no cost') as string,
        fatal: false,
      },
    ]);
    // Said once, right after run.started.
    expect(loopTypes(events).slice(0, 2)).toEqual(['run.started', 'error']);
    expect(ofType(events, 'limit.reached')).toEqual([]);
  });
});

describe('the loop: --max-story-cost', () => {
  it('stops the run when the story about to be tried has spent its budget, across its attempts', async () => {
    fixture = new LoopHarness(CHANGE, stories(2)).scenario({
      '1-1': succeedFor(0.3, 'src/one.txt'),
      '2-*': [{ cost: 0.15 }, { signal: 'FAILED: stuck' }],
    });
    const f = fixture;
    const result = await f.run({
      completion: 'keep',
      format: 'claude',
      options: { maxStoryCostUsd: 0.3 },
    });
    expect(result.exitCode).toBe(5);
    expect(result.outcome).toBe('budget');
    const events = result.events();
    // Each story has its own budget: story 1 spent all of its own, story 2 then $0.15 twice.
    expect(ofType(events, 'story.started').map((e) => `${e.storyId}-${e.attempt}`)).toEqual([
      '1-1',
      '2-1',
      '2-2',
    ]);
    expect(single(events, 'limit.reached')).toMatchObject({
      limit: 'max-story-cost',
      message: 'story 2 spent $0.30 of --max-story-cost $0.30',
    });
  });
});

describe('the loop: Claude Code stopped at --max-budget-usd', () => {
  it('gets the smaller remainder as its allowance; stopping there ends the run, reverted, saved, not counted', async () => {
    fixture = new LoopHarness(CHANGE, stories(2)).scenario({
      '1-1': succeedFor(0.3, 'src/one.txt'),
      // Story 2 writes, then its spending crosses the allowance: Claude Code stops at once.
      '2-1': [
        { write: 'src/two.txt', content: 'half\n' },
        { cost: 0.45 },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    const f = fixture;
    const result = await f.run({
      completion: 'keep',
      format: 'claude',
      options: { maxCostUsd: 1, maxStoryCostUsd: 0.4 },
    });
    expect(result.outcome).toBe('budget');
    expect(result.exitCode).toBe(5);
    const events = result.events();
    // Not the agent's failure: no attempt.failed, no warning of an agent error.
    expect(ofType(events, 'attempt.failed')).toEqual([]);
    expect(ofType(events, 'error')).toEqual([]);
    expect(loopTypes(events).slice(-5)).toEqual([
      'story.started',
      'checkpoint.reverted',
      'limit.reached',
      'run.awaiting-choice',
      'run.finished',
    ]);
    expect(single(events, 'limit.reached')).toEqual({
      type: 'limit.reached',
      limit: 'max-story-cost',
      message:
        'story 2 spent $0.45 of --max-story-cost $0.40 (the agent stopped at the budget it was given)',
    });
    // The attempt's work is saved and reverted; its cost is in the ledger; it is not counted.
    expect(f.attemptRefs()).toContain(`${REF}/2-1`);
    expect(f.git('show', `${REF}/2-1:src/two.txt`)).toBe('half\n');
    expect(f.exists('src/two.txt')).toBe(false);
    const state = f.state() as unknown as Ledger;
    expect(state.stories['2']).toMatchObject({ attempts: 0, completed: false });
    expect(state.stories['2']?.costUsd).toBeCloseTo(0.45, 10);
    expect(state.costUsd).toBeCloseTo(0.75, 10);
  });
});
