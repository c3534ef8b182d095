import { describe, expect, it } from 'vitest';
import { parseSignal, withoutEchoedPrompt } from '../../src/core/signal.js';

describe('parseSignal', () => {
  it('reads COMPLETE', () => {
    expect(parseSignal('All done.\n<promise>COMPLETE</promise>')).toEqual({ kind: 'complete' });
  });

  it('reads FAILED with its reason, trimmed', () => {
    expect(parseSignal('<promise>FAILED:  tests need a database </promise>')).toEqual({
      kind: 'failed',
      reason: 'tests need a database',
    });
  });

  it('tolerates whitespace inside the tags', () => {
    expect(parseSignal('< promise >\n COMPLETE \n</ promise >')).toEqual({ kind: 'complete' });
    expect(parseSignal('<promise> FAILED : flaky\nnetwork </promise>')).toEqual({
      kind: 'failed',
      reason: 'flaky\nnetwork',
    });
  });

  it('lets the last signal count', () => {
    const text = '<promise>FAILED: first</promise> then fixed it <promise>COMPLETE</promise>';
    expect(parseSignal(text)).toEqual({ kind: 'complete' });
    const reversed = '<promise>COMPLETE</promise> oops <promise>FAILED: broke it</promise>';
    expect(parseSignal(reversed)).toEqual({ kind: 'failed', reason: 'broke it' });
  });

  it('returns null without a signal, and for a malformed one', () => {
    expect(parseSignal('I think I am done')).toBeNull();
    expect(parseSignal('<promise>DONE</promise>')).toBeNull();
    expect(parseSignal('<promise>COMPLETE')).toBeNull();
    expect(parseSignal('<promise>COMPLETE: extra</promise>')).toBeNull();
  });

  it('gives FAILED without a reason a placeholder and clips long reasons', () => {
    expect(parseSignal('<promise>FAILED</promise>')).toEqual({
      kind: 'failed',
      reason: 'no reason given',
    });
    const long = parseSignal(`<promise>FAILED: ${'x'.repeat(5000)}</promise>`);
    expect(long?.kind === 'failed' && long.reason.length).toBe(2001);
  });
});

describe('withoutEchoedPrompt', () => {
  const prompt = [
    '# Working on Story 1: Setup',
    '- `<promise>COMPLETE</promise>` when every task of this story is implemented.',
    '- `<promise>FAILED: {reason}</promise>` when you cannot finish this story.',
  ].join('\n');

  it('drops echoed prompt lines so their signals do not count', () => {
    const echoed = `thinking...\n${prompt}\nbye`;
    expect(parseSignal(echoed)).not.toBeNull();
    expect(parseSignal(withoutEchoedPrompt(echoed, prompt))).toBeNull();
  });

  it('keeps a bare signal line even when the prompt quotes one (learnings, reasons)', () => {
    const quoting = `${prompt}\n## Shared learnings\n<promise>COMPLETE</promise>`;
    expect(parseSignal(withoutEchoedPrompt('<promise>COMPLETE</promise>', quoting))).toEqual({
      kind: 'complete',
    });
  });

  it("keeps the agent's own signal lines", () => {
    const answer = `${prompt}\nDone.\n<promise>COMPLETE</promise>`;
    expect(parseSignal(withoutEchoedPrompt(answer, prompt))).toEqual({ kind: 'complete' });
  });
});
