// A run whose agent reports no cost (Codex, a command) records 0 in its ledger: every place that
// shows the cost says "—" (unknown), never $0.00, and the events carry null.
import { describe, expect, it } from 'vitest';
import type { RunState } from '../../src/checkpoint/state.js';
import { ManyOutput } from '../../src/cli/render/many-output.js';
import { renderRemoteRuns } from '../../src/cli/render/remote-status.js';
import { renderStatuses } from '../../src/cli/render/status.js';
import type { RunEvent } from '../../src/core/events.js';
import { notifyMessage } from '../../src/core/notify-message.js';
import { plainStyle } from '../../src/format/style.js';
import type { RunStatus } from '../../src/run/status/status.js';

const finished = (costUsd: number | null): Extract<RunEvent, { type: 'run.finished' }> => ({
  type: 'run.finished',
  outcome: 'complete',
  choice: 'keep',
  branch: 'ralph/add-widgets',
  originalBranch: 'main',
  storiesCompleted: 2,
  storiesTotal: 2,
  costUsd,
  durationMs: 65_000,
});

describe('an unknown cost is "—", never $0.00', () => {
  it('in the summary of several runs', () => {
    const lines = (costUsd: number | null): string => {
      const output = new ManyOutput(() => undefined, plainStyle, false);
      output.event('add-widgets', finished(costUsd));
      return output
        .summary({ exitCode: 0, runs: [{ change: 'add-widgets', exitCode: 0, error: null }] })
        .join('\n');
    };
    expect(lines(null)).toContain(
      'add-widgets: complete · stories 2/2 · — · kept on ralph/add-widgets',
    );
    expect(lines(null)).not.toContain('$');
    expect(lines(0.0125)).toContain('· $0.0125 ·');
  });

  it('in the notification of a finished run', () => {
    const message = notifyMessage(finished(null), { change: 'add-widgets' });
    expect(message).toMatch(/^add-widgets is complete \(2\/2 stories done, 1m\)/);
    expect(message).not.toContain('$');
    expect(notifyMessage(finished(1.5), { change: 'add-widgets' })).toContain('$1.50');
  });

  it('in `status` with a budget', () => {
    const run: RunStatus = {
      change: 'add-widgets',
      state: 'interrupted',
      pid: null,
      outcome: null,
      choice: null,
      branch: 'ralph/add-widgets',
      originalBranch: 'main',
      stories: { done: 1, total: 2 },
      currentStory: '2',
      currentAttempt: 1,
      costUsd: 0,
      startedAt: null,
      updatedAt: null,
      next: 'ralphtool resume add-widgets',
      error: null,
      budget: { maxCostUsd: 5, maxStoryCostUsd: null },
    };
    const text = renderStatuses([run], plainStyle, new Date());
    expect(text).toContain('— of $5.00');
    expect(text).not.toContain('$0.00');
  });

  it('in `status --remote`', () => {
    const now = new Date('2026-11-28T00:00:00Z');
    // Only the fields the table reads; the record's schema is tested with state.json.
    const state = {
      status: 'finished',
      outcome: 'complete',
      choice: 'keep',
      stories: { '1': { completed: true }, '2': { completed: false } },
      storiesTotal: 3,
      costUsd: 0,
      updatedAt: '2026-11-27T23:00:00.000Z',
      host: 'builder',
    } as unknown as RunState;
    const text = renderRemoteRuns(
      'origin',
      [{ change: 'add-widgets', state, recordSha: 'a'.repeat(40), claim: null }],
      plainStyle,
      now,
    );
    expect(text).toMatch(/add-widgets +finished \(keep\) +1\/3 stories +— +updated/);
    expect(text).not.toContain('$0');
  });
});
