import { describe, expect, it } from 'vitest';
import { renderStatuses } from '../../src/cli/render/status.js';
import { plainStyle } from '../../src/format/style.js';
import type { RunStatus } from '../../src/run/status/status.js';

const run = (costUsd: number): RunStatus => ({
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
  costUsd,
  startedAt: null,
  updatedAt: null,
  next: 'ralphtool resume add-widgets',
  error: null,
});

describe('ralphtool status: the cost', () => {
  it('shows a recorded cost precisely, and none recorded (Codex, a command) as "—", not $0.00', () => {
    const now = new Date();
    expect(renderStatuses([run(0.0125)], plainStyle, now)).toContain('attempt 1 · $0.0125');
    const none = renderStatuses([run(0)], plainStyle, now);
    expect(none).toContain('1/2 stories · story 2, attempt 1 · —');
    expect(none).not.toContain('$0.00');
  });
});
