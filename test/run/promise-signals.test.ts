import { afterEach, describe, expect, it } from 'vitest';
import { LoopHarness } from '../support/loop-harness.js';
import { ofType, single, stories } from './helpers.js';

const CHANGE = 'signal-rules';
const COMPLETE = '<promise>COMPLETE</promise>';

let fixture: LoopHarness | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe('the loop: which signals count', () => {
  it('does not count the COMPLETE of the prompt echoed back by the agent', async () => {
    fixture = new LoopHarness(CHANGE, stories(1)).scenario({
      // Tasks ticked, so counting the echoed COMPLETE would accept the story.
      '1-1': [{ tick: 'all' }, { echoPrompt: true }],
    });
    const result = await fixture.run({ maxRetries: 0, completion: 'keep' });
    expect(result.exitCode).toBe(3);
    const events = result.events();
    // The echo did reach ralphtool as the agent's own output.
    expect(events.some((e) => e.type === 'agent.message' && e.text.includes(COMPLETE))).toBe(true);
    expect(single(events, 'attempt.failed')).toMatchObject({ attempt: 1, kind: 'no-signal' });
  });

  it('takes the last signal of the final answer and tolerates whitespace in the tags', async () => {
    fixture = new LoopHarness(CHANGE, stories(2)).scenario({
      '1-1': [{ tick: 'all' }, { say: COMPLETE }, { signal: 'FAILED: changed my mind' }],
      '1-2': [
        { tick: 'all' },
        { say: '<promise>FAILED: first thought</promise>' },
        { say: COMPLETE },
      ],
      '2-1': [{ tick: 'all' }, { say: '< promise >  COMPLETE \t</ promise >' }],
    });
    const result = await fixture.run({ maxRetries: 1, completion: 'keep' });
    expect(result.exitCode).toBe(0);
    const events = result.events();
    expect(single(events, 'attempt.failed')).toMatchObject({
      storyId: '1',
      attempt: 1,
      kind: 'failed-signal',
      reason: 'changed my mind',
    });
    expect(ofType(events, 'story.completed').map((e) => [e.storyId, e.attempts])).toEqual([
      ['1', 2],
      ['2', 1],
    ]);
  });

  it('counts the agent’s own COMPLETE line even when the prompt quotes that exact line', async () => {
    // The learnings (shown in the next prompt) hold the bare signal on a line of its own.
    fixture = new LoopHarness(CHANGE, stories(1));
    const f = fixture;
    f.scenario({
      '1-1': [
        { append: f.learningsPath, content: `End the answer with this line:\n${COMPLETE}\n` },
        { signal: 'FAILED: forgot how to finish' },
      ],
      '1-2': [{ tick: 'all' }, { say: 'Done.' }, { signal: 'COMPLETE' }],
    });
    const result = await f.run({ maxRetries: 1, completion: 'keep' });
    expect(f.prompt('1', 2).split('\n')).toContain(COMPLETE);
    expect(ofType(result.events(), 'attempt.failed').map((e) => e.kind)).toEqual(['failed-signal']);
    expect(result.exitCode).toBe(0);
  });

  it('claude stream: a COMPLETE inside a tool result does not count, the result text does', async () => {
    fixture = new LoopHarness(CHANGE, stories(1));
    const f = fixture;
    f.scenario({
      '1-1': [
        { tick: 'all' },
        // A tool whose output is exactly the signal, then the prompt read back as a tool result.
        { git: ['log', '-1', `--format=${COMPLETE}`] },
        { echoPrompt: true },
        { say: 'I read the instructions.' },
      ],
      '1-2': [{ tick: 'all' }, { say: `All ticked.\n${COMPLETE}` }],
    });
    const result = await f.run({ maxRetries: 1, format: 'claude', completion: 'keep' });
    expect(result.exitCode).toBe(0);
    const events = result.events();
    expect(single(events, 'run.started')).toMatchObject({ agent: 'claude' });
    expect(single(events, 'attempt.failed')).toMatchObject({ attempt: 1, kind: 'no-signal' });
    expect(single(events, 'story.completed')).toMatchObject({ storyId: '1', attempts: 2 });

    // The stream was understood: tool calls and results with usage and cost.
    const tools = ofType(events, 'agent.tool').filter((e) => e.attempt === 1);
    expect(tools.map((e) => e.name)).toEqual(expect.arrayContaining(['Bash', 'Read']));
    const results = ofType(events, 'agent.result');
    expect(results).toHaveLength(2);
    expect(results[0]).toMatchObject({
      storyId: '1',
      attempt: 1,
      tokens: { input: 1200, output: 250, cacheRead: 4500, cacheWrite: 300 },
      costUsd: 0.0125,
      isError: false,
    });
    expect(results[0]?.turns).toBeGreaterThan(0);
    expect(single(events, 'run.finished').costUsd).toBeCloseTo(0.025, 10);
  });
});
