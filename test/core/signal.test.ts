import { describe, expect, it } from 'vitest';
import { parseSignal } from '../../src/core/signal.js';

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
