import { describe, expect, it } from 'vitest';
import { buildReport, markdownCell } from '../../src/core/run-report.js';

describe('markdownCell', () => {
  it('keeps any title one plain cell: newlines, pipes, backslashes and HTML', () => {
    expect(markdownCell('a\nb\r\nc')).toBe('a b c');
    expect(markdownCell('x | y')).toBe('x \\| y');
    expect(markdownCell('a\\|b')).toBe('a\\\\\\|b');
    expect(markdownCell('<script>')).toBe('&lt;script&gt;');
  });
});

describe('buildReport', () => {
  const state = {
    change: 'c',
    branch: 'ralph/c',
    status: 'active' as const,
    outcome: 'time-limit',
    choice: null,
    costUsd: 0,
    stories: {
      '2': { attempts: 2, completed: true, costUsd: 0, durationMs: 1000 },
      '1': { attempts: 1, completed: true, costUsd: 0.5, durationMs: 500 },
    },
    remote: { push: 'origin' },
  };

  it('orders stories as tasks.md does, with titles, and shows no cost as null (never $0.00)', () => {
    const report = buildReport(
      state,
      new Map([
        ['1', 'One'],
        ['2', 'Two'],
        ['3', 'Three'],
      ]),
      ['1', '2', '3'],
    );
    expect(report.stories.map((s) => [s.id, s.title, s.done, s.attempts, s.costUsd])).toEqual([
      ['1', 'One', true, 1, 0.5],
      ['2', 'Two', true, 2, null],
      ['3', 'Three', false, 0, null],
    ]);
    expect(report.costUsd).toBeNull();
    expect(report.durationMs).toBe(1500);
    expect(report.remote).toBe('origin');
  });

  it('keeps a recorded story the change no longer names (by its id)', () => {
    const report = buildReport(state, new Map(), []);
    expect(report.stories.map((s) => s.title)).toEqual(['1', '2']);
  });
});
