import { describe, expect, it } from 'vitest';
import type { Story } from '../../src/core/change.js';
import { judgeAttempt, type AttemptReport } from '../../src/core/judge.js';

const TASKS = 'openspec/changes/x/tasks.md';

function story(done: boolean[]): Story {
  return {
    id: '1',
    title: 'Setup',
    line: 1,
    done: done.every(Boolean),
    tasks: done.map((d, i) => ({
      id: `1.${i + 1}`,
      description: `task ${i + 1}`,
      done: d,
      line: i + 2,
      depth: 0,
    })),
  };
}

function report(overrides: Partial<AttemptReport>): AttemptReport {
  return {
    finalAnswer: '',
    exitCode: 0,
    signal: null,
    timedOut: null,
    agentError: null,
    stderrTail: '',
    ...overrides,
  };
}

const complete = '<promise>COMPLETE</promise>';

describe('judgeAttempt', () => {
  it('judges a stop at the budget the agent was given as kind budget, whatever else it said', () => {
    const stopped = report({
      budgetReached: 'Reached maximum budget ($0.4)',
      exitCode: 1,
      finalAnswer: complete,
    });
    expect(judgeAttempt(stopped, story([true]), '1', TASKS)).toEqual({
      accepted: false,
      kind: 'budget',
      reason: 'Reached maximum budget ($0.4)',
    });
  });

  it('accepts COMPLETE with every task checked', () => {
    expect(
      judgeAttempt(report({ finalAnswer: complete }), story([true, true]), '1', TASKS),
    ).toEqual({ accepted: true });
  });

  it('fails COMPLETE with unchecked tasks and lists them', () => {
    const verdict = judgeAttempt(
      report({ finalAnswer: complete }),
      story([true, false]),
      '1',
      TASKS,
    );
    expect(verdict).toMatchObject({ accepted: false, kind: 'tasks-unchecked' });
    expect(verdict.accepted === false && verdict.reason).toContain('- [ ] 1.2 task 2');
  });

  it('fails COMPLETE when tasks.md is gone or the story vanished', () => {
    expect(judgeAttempt(report({ finalAnswer: complete }), null, '1', TASKS)).toMatchObject({
      kind: 'tasks-unchecked',
      reason: expect.stringContaining('missing or unreadable') as unknown,
    });
    expect(judgeAttempt(report({ finalAnswer: complete }), undefined, '1', TASKS)).toMatchObject({
      kind: 'tasks-unchecked',
      reason: expect.stringContaining('no longer in') as unknown,
    });
  });

  it('reads FAILED as failed-signal with its reason', () => {
    expect(
      judgeAttempt(
        report({ finalAnswer: '<promise>FAILED: no db</promise>' }),
        story([false]),
        '1',
        TASKS,
      ),
    ).toEqual({ accepted: false, kind: 'failed-signal', reason: 'no db' });
  });

  it('tells no-signal from a crash', () => {
    expect(judgeAttempt(report({}), story([false]), '1', TASKS)).toMatchObject({
      kind: 'no-signal',
    });
    expect(
      judgeAttempt(report({ exitCode: 1, stderrTail: 'segfault' }), story([false]), '1', TASKS),
    ).toMatchObject({ kind: 'crash', reason: expect.stringContaining('segfault') as unknown });
    expect(
      judgeAttempt(report({ exitCode: null, signal: 'SIGKILL' }), story([false]), '1', TASKS),
    ).toMatchObject({ kind: 'crash', reason: expect.stringContaining('SIGKILL') as unknown });
  });

  it('puts timeouts and agent errors before the signal', () => {
    const withSignal = { finalAnswer: complete };
    expect(
      judgeAttempt(report({ ...withSignal, timedOut: 'wall' }), story([true]), '1', TASKS),
    ).toMatchObject({ kind: 'timeout' });
    expect(
      judgeAttempt(report({ ...withSignal, timedOut: 'idle' }), story([true]), '1', TASKS),
    ).toMatchObject({ kind: 'idle-timeout' });
    expect(
      judgeAttempt(report({ ...withSignal, agentError: 'overloaded' }), story([true]), '1', TASKS),
    ).toEqual({ accepted: false, kind: 'agent-error', reason: 'overloaded' });
  });
});
