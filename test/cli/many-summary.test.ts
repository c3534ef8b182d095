import { describe, expect, it } from 'vitest';
import { ManyOutput } from '../../src/cli/render/many-output.js';
import type { CompletionChoice, RunEvent } from '../../src/core/events.js';
import { plainStyle } from '../../src/format/style.js';

const WORKTREE = '/home/me/app.ralph/add-a';

function summaryLine(
  choice: CompletionChoice | null,
  opts: { removed?: boolean; keptBy?: string; resolve?: 'done' | 'dropped' } = {},
): string {
  const output = new ManyOutput(() => undefined, plainStyle, false);
  const started: RunEvent = {
    type: 'run.started',
    change: 'add-a',
    branch: 'ralph/add-a',
    originalBranch: 'main',
    baseSha: 'a'.repeat(40),
    agent: 'command',
    maxRetries: 3,
    worktree: WORKTREE,
    stories: [{ id: '1', title: 'One', done: false }],
  };
  output.event('add-a', started);
  if (opts.keptBy !== undefined) output.keptBy('add-a', opts.keptBy);
  // --resolve-conflicts: the extra story, done or dropped.
  if (opts.resolve !== undefined) {
    output.event('add-a', {
      type: 'resolve.started',
      storyId: '2',
      title: 'Bring this change onto your work tree',
      files: ['src/app.ts', 'README.md'],
    });
  }
  if (opts.resolve === 'dropped') {
    output.event('add-a', {
      type: 'resolve.dropped',
      storyId: '2',
      reason: 'its 3 attempts failed',
    });
  }
  output.event('add-a', {
    type: 'run.finished',
    outcome: choice === null ? 'max-retries' : 'complete',
    choice,
    branch: 'ralph/add-a',
    originalBranch: 'main',
    storiesCompleted: 1,
    storiesTotal: 1,
    costUsd: 0.5,
    durationMs: 1000,
    worktree: { root: WORKTREE, removed: opts.removed ?? choice !== null },
  });
  const lines = output.summary({
    exitCode: 0,
    runs: [{ change: 'add-a', exitCode: 0, error: null }],
  });
  return lines[1] ?? '';
}

describe('the summary of several runs says where each run’s work is', () => {
  it.each([
    ['brought home', 'cleanup', {}, '· came home into your work tree (exit 0)'],
    ['kept', 'keep', {}, '· kept on ralph/add-a (exit 0)'],
    [
      'kept by the merge check',
      'keep',
      { keptBy: 'add-b (src/app.ts)' },
      '· kept on ralph/add-a: collides with add-b (src/app.ts) (exit 0)',
    ],
    [
      'kept, its worktree too (--keep-worktree)',
      'keep',
      { removed: false },
      `· kept on ralph/add-a (its worktree stays at ${WORKTREE}) (exit 0)`,
    ],
    ['no choice: resumable in its worktree', null, {}, `· ${WORKTREE} (ralph/add-a) (exit 0)`],
    [
      'brought home after the agent resolved the conflicts (--resolve-conflicts)',
      'cleanup',
      { resolve: 'done' },
      '· came home into your work tree after its agent resolved the conflicts (src/app.ts, README.md) (exit 0)',
    ],
    [
      'kept: the agent did not resolve the conflicts (--resolve-conflicts)',
      'keep',
      { resolve: 'dropped' },
      '· kept on ralph/add-a: collides with your work tree (src/app.ts, README.md) and its agent did not resolve it: its 3 attempts failed (exit 0)',
    ],
  ] as const)('%s', (_name, choice, opts, ending) => {
    expect(summaryLine(choice, opts).endsWith(ending), summaryLine(choice, opts)).toBe(true);
  });
});
