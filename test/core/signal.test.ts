import { describe, expect, it } from 'vitest';
import { buildPrompt, type PromptInput } from '../../src/core/prompt.js';
import { parseSignal, withoutEchoedPrompt } from '../../src/core/signal.js';

const PROMPT_INPUT: PromptInput = {
  changeName: 'add-auth',
  paths: {
    changeDir: 'openspec/changes/add-auth',
    tasks: 'openspec/changes/add-auth/tasks.md',
    proposal: null,
    design: null,
    specsDir: null,
  },
  story: { id: '1', title: 'Setup', line: 1, done: false, tasks: [] },
  attempt: 1,
  maxAttempts: 4,
  previousFailure: null,
  requirements: [],
  verify: { commands: [], inferred: false },
  learnings: { path: '/tmp/learnings.md', content: '' },
};

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

  it('drops the echoed BLOCKED instruction of the real prompt, keeps the agent’s own BLOCKED', () => {
    const real = buildPrompt(PROMPT_INPUT);
    const instruction = real.split('\n').find((line) => line.includes('<promise>BLOCKED'));
    expect(instruction).toBeDefined();
    // The instruction line alone would block: the echo rule is what stops it.
    expect(parseSignal(real)).toMatchObject({ kind: 'blocked' });
    expect(parseSignal(withoutEchoedPrompt(`Reading it:\n${real}\nok`, real))).toBeNull();
    const own = `${real}\n<promise>BLOCKED: which key?</promise>`;
    expect(parseSignal(withoutEchoedPrompt(own, real))).toEqual({
      kind: 'blocked',
      question: 'which key?',
    });
  });

  it("keeps the agent's own signal lines", () => {
    const answer = `${prompt}\nDone.\n<promise>COMPLETE</promise>`;
    expect(parseSignal(withoutEchoedPrompt(answer, prompt))).toEqual({ kind: 'complete' });
  });
});

describe('parseSignal: BLOCKED', () => {
  it('reads BLOCKED with its question, trimmed, in any case and with whitespace in the tags', () => {
    const blocked = { kind: 'blocked', question: 'Which database: Postgres or SQLite?' };
    expect(parseSignal('<promise>BLOCKED: Which database: Postgres or SQLite?</promise>')).toEqual(
      blocked,
    );
    expect(
      parseSignal('< promise >\n blocked :  Which database: Postgres or SQLite? \n</ promise >'),
    ).toEqual(blocked);
    expect(parseSignal('<PROMISE>Blocked:Which database: Postgres or SQLite?</PROMISE>')).toEqual(
      blocked,
    );
    // A question over several lines keeps them.
    expect(parseSignal('<promise>BLOCKED: Which key?\nThe staging one or prod?</promise>')).toEqual(
      { kind: 'blocked', question: 'Which key?\nThe staging one or prod?' },
    );
  });

  it('ignores a BLOCKED without a question: nothing to answer', () => {
    expect(parseSignal('<promise>BLOCKED</promise>')).toBeNull();
    expect(parseSignal('<promise>BLOCKED:   </promise>')).toBeNull();
    expect(parseSignal('<promise>BLOCKED: \n </promise>')).toBeNull();
    // It does not hide the signal before it either.
    expect(parseSignal('<promise>COMPLETE</promise>\n<promise>BLOCKED</promise>')).toEqual({
      kind: 'complete',
    });
  });

  it('lets the last signal count between FAILED, BLOCKED and COMPLETE', () => {
    expect(
      parseSignal('<promise>BLOCKED: which key?</promise> found it <promise>COMPLETE</promise>'),
    ).toEqual({ kind: 'complete' });
    expect(
      parseSignal('<promise>COMPLETE</promise> wait <promise>BLOCKED: which key?</promise>'),
    ).toEqual({ kind: 'blocked', question: 'which key?' });
    expect(
      parseSignal('<promise>FAILED: no key</promise>\n<promise>BLOCKED: which key?</promise>'),
    ).toEqual({ kind: 'blocked', question: 'which key?' });
    expect(
      parseSignal('<promise>BLOCKED: which key?</promise>\n<promise>FAILED: gave up</promise>'),
    ).toEqual({ kind: 'failed', reason: 'gave up' });
  });

  it('clips a very long question', () => {
    const long = parseSignal(`<promise>BLOCKED: ${'q'.repeat(5000)}</promise>`);
    expect(long?.kind === 'blocked' && long.question.length).toBe(2001);
  });
});
