import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/events.js';
import { knownCost } from '../../src/core/run-summary.js';
import { formatCost } from '../../src/format/units.js';
import { applyEvents, initialLoopView, type LoopView } from '../../src/ui/state/loop-view.js';
import { LoopHarness } from '../support/loop-harness.js';
import { ofType, single, stories, succeed } from './helpers.js';
import { printed, row } from '../support/plain-output.js';

/** The UI's loop view folded from these events. */
function viewOf(events: readonly RunEvent[]): LoopView {
  const ts = new Date(0).toISOString();
  return applyEvents(
    initialLoopView(''),
    events.map((e) => ({ ...e, ts })),
    1000,
  );
}

const CHANGE = 'agent-figures';

let fixture: LoopHarness | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

// The fake agent's claude result costs $0.0125 with 1200 in, 250 out, 4500 cache-read and
// 300 cache-write tokens; its codex turn has 1200 in (200 of them cached) and 300 out.
describe('the loop: cost and tokens come from the agent’s result', () => {
  it('adds a failed attempt’s cost to its story and to the run (claude stream)', async () => {
    fixture = new LoopHarness(CHANGE, stories(2)).scenario({
      '1-1': [{ write: 'src/a.txt', content: 'a\n' }, { signal: 'FAILED: not yet' }],
      '1-2': succeed('src/a.txt', 'a\n'),
      '2-1': succeed('src/b.txt', 'b\n'),
    });
    const f = fixture;
    const result = await f.run({ maxRetries: 1, format: 'claude', completion: 'keep' });
    expect(result.exitCode).toBe(0);
    const events = result.events();

    const results = ofType(events, 'agent.result');
    expect(results.map((e) => [e.storyId, e.attempt])).toEqual([
      ['1', 1],
      ['1', 2],
      ['2', 1],
    ]);
    for (const e of results) {
      expect(e).toMatchObject({
        tokens: { input: 1200, output: 250, cacheRead: 4500, cacheWrite: 300 },
        costUsd: 0.0125,
        durationMs: 1234,
        isError: false,
      });
    }
    const completed = ofType(events, 'story.completed');
    expect(completed.map((e) => [e.storyId, e.attempts])).toEqual([
      ['1', 2],
      ['2', 1],
    ]);
    expect(completed[0]?.costUsd).toBeCloseTo(0.025, 10);
    expect(completed[1]?.costUsd).toBeCloseTo(0.0125, 10);
    expect(single(events, 'run.finished').costUsd).toBeCloseTo(0.0375, 10);

    expect(f.state()).toMatchObject({
      costUsd: expect.closeTo(0.0375, 10) as unknown,
      stories: {
        '1': { attempts: 2, costUsd: expect.closeTo(0.025, 10) as unknown },
        '2': { attempts: 1, costUsd: expect.closeTo(0.0125, 10) as unknown },
      },
    });
  });

  it('counts codex tokens with the cached ones apart from the input, at no known cost', async () => {
    fixture = new LoopHarness(CHANGE, stories(1)).scenario({ '1-1': succeed('src/a.txt', 'a\n') });
    const result = await fixture.run({ maxRetries: 0, format: 'codex', completion: 'keep' });
    expect(result.exitCode).toBe(0);
    const events = result.events();
    expect(single(events, 'run.started')).toMatchObject({ agent: 'codex' });
    expect(single(events, 'agent.result')).toMatchObject({
      storyId: '1',
      attempt: 1,
      tokens: { input: 1000, output: 300, cacheRead: 200, cacheWrite: 0 },
      costUsd: null,
      isError: false,
    });
    expect(single(events, 'story.completed')).toMatchObject({ storyId: '1', costUsd: null });
    expect(single(events, 'run.finished')).toMatchObject({ outcome: 'complete', costUsd: null });
    // What the user reads: tokens, and "—" for the cost, never $0.00; turns named for what they are.
    const out = printed(events);
    expect(out).not.toMatch(/\$0\.00/);
    expect(out).toContain('= 1 Codex turn · 1200 in / 300 out tokens · —');
    expect(out).toContain('✓ Story 1 done · 1 attempt · 1.5k tokens · cost — ·');
    expect(row(out, '1')).toEqual(['1', 'Story 1', '1', 'done', '—', expect.any(String)]);
    expect(out).toContain('all stories complete · 1/1 stories · 1.5k tokens · cost — ·');
    // The UI's loop view says the same.
    const view = viewOf(events);
    expect(formatCost(knownCost(view.summary))).toBe('—');
    expect(view.details['1']?.transcript.lines.map((l) => l.text)).toContain(
      '1 Codex turn · 1200 in / 300 out tokens · — · 0s',
    );
  });

  it('shows costs precise enough that the rows add up to the total (claude stream)', async () => {
    fixture = new LoopHarness(CHANGE, stories(3)).scenario({
      '*': succeed('src/a.txt', 'a\n'),
    });
    const result = await fixture.run({ format: 'claude', completion: 'keep' });
    expect(result.exitCode).toBe(0);
    const out = printed(result.events());
    // Each story costs $0.0125: shown as such, not as $0.01 three times beside a $0.04 total.
    for (const id of ['1', '2', '3']) expect(row(out, id)).toContain('$0.0125');
    expect(out).toContain('✓ Story 1 done · 1 attempt · $0.0125 ·');
    expect(out).toContain('all stories complete · 3/3 stories · $0.0375 ·');
  });
});
