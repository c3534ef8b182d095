import { describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/events.js';
import { SILENCE_PACE_MS, SilenceLine } from '../../src/cli/render/silence.js';

// docs/contract.md, "`run <change>` and `resume <change>`": while an agent is silent, one line
// at a steady pace. The clock is the test's: each call says what time it is.

const started = (attempt: number): RunEvent => ({
  type: 'story.started',
  storyId: '2',
  title: 'Login',
  index: 2,
  total: 3,
  completed: 1,
  attempt,
});
const tool = (name: string, summary: string): RunEvent => ({
  type: 'agent.tool',
  storyId: '2',
  attempt: 1,
  name,
  summary,
});
const result: RunEvent = {
  type: 'agent.result',
  storyId: '2',
  attempt: 1,
  turns: 3,
  tokens: { input: 10_000, output: 2_000, cacheRead: 300, cacheWrite: 0 },
  costUsd: 0.01,
  durationMs: 1,
  isError: false,
};

/** The lines a silence would print, asked once a second from `from` to `to` (ms). */
function linesBetween(s: SilenceLine, from: number, to: number): [number, string][] {
  const out: [number, string][] = [];
  for (let t = from; t <= to; t += 1000) {
    const line = s.due(t);
    if (line !== null) out.push([t, line]);
  }
  return out;
}

describe('the line while an agent is silent', () => {
  it('comes once a pace of silence, at a steady pace, with the elapsed time and the last tool', () => {
    const s = new SilenceLine();
    s.see(started(1), 0);
    expect(linesBetween(s, 0, 95_000)).toEqual([
      [30_000, '  ⋯ still working: 30s into attempt 1 · no tool used yet'],
      [60_000, '  ⋯ still working: 1m00s into attempt 1 · no tool used yet'],
      [90_000, '  ⋯ still working: 1m30s into attempt 1 · no tool used yet'],
    ]);
  });

  it('starts again after each word of the agent, and names its last tool', () => {
    const s = new SilenceLine();
    s.see(started(1), 0);
    s.see(tool('Bash', 'npm test'), 20_000);
    expect(s.due(49_000)).toBeNull();
    expect(s.due(50_000)).toMatch(
      /^ {2}⋯ still working: 50s into attempt 1 · last tool: Bash npm test$/,
    );
    expect(s.due(79_000)).toBeNull();
  });

  it('says nothing between attempts, and counts the tokens of the attempts that ended', () => {
    const s = new SilenceLine();
    s.see(started(1), 0);
    s.see(result, 10_000);
    expect(linesBetween(s, 10_000, 200_000)).toEqual([]);
    s.see(started(2), 200_000);
    expect(s.due(200_000 + SILENCE_PACE_MS)).toBe(
      '  ⋯ still working: 30s into attempt 2 · no tool used yet · 12.3k tokens so far',
    );
    s.see({ type: 'story.blocked', storyId: '2', attempt: 2, question: 'which?' }, 240_000);
    expect(s.due(400_000)).toBeNull();
  });
});
