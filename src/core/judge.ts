import type { Story } from './change.js';
import type { AttemptFailure, LimitKind } from './events.js';
import { parseSignal } from './signal.js';

/** What the agent process did, as far as judging the attempt needs. */
export interface AttemptReport {
  finalAnswer: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: 'wall' | 'idle' | null;
  agentError: string | null;
  stderrTail: string;
  /** The agent's own report of a usage/rate limit or a transient API error. */
  limit?: { kind: LimitKind; message: string } | null;
  /** The agent stopped at the budget it was given (Claude Code's `--max-budget-usd`). */
  budgetReached?: string | null;
}

/** A stop by the user is not judged: the attempt reports it as kind `stopped` before this. */
export type AttemptVerdict = { accepted: true } | ({ accepted: false } & AttemptFailure);

/**
 * Judges an attempt from what the agent said and what tasks.md holds afterwards
 * (docs/contract.md, "Outcome of an attempt"), before any verification command runs.
 * `storyAfter` is the story as re-read after the attempt: undefined when it is gone
 * from tasks.md, null when tasks.md itself could not be read.
 */
export function judgeAttempt(
  report: AttemptReport,
  storyAfter: Story | null | undefined,
  storyId: string,
  tasksPath: string,
): AttemptVerdict {
  // A limit is no failure of the agent's: whatever else went wrong came from it.
  if (report.limit) {
    return { accepted: false, kind: 'limited', reason: report.limit.message };
  }
  // The run's budget ended it: no failure of the agent's either (docs/contract.md, "Budgets").
  if (report.budgetReached) {
    return { accepted: false, kind: 'budget', reason: report.budgetReached };
  }
  if (report.timedOut === 'wall') {
    return { accepted: false, kind: 'timeout', reason: 'the attempt ran past --agent-timeout' };
  }
  if (report.timedOut === 'idle') {
    return {
      accepted: false,
      kind: 'idle-timeout',
      reason: 'the agent printed nothing for longer than --idle-timeout',
    };
  }
  if (report.agentError !== null) {
    return { accepted: false, kind: 'agent-error', reason: report.agentError };
  }
  const signal = parseSignal(report.finalAnswer);
  if (signal?.kind === 'failed') {
    return { accepted: false, kind: 'failed-signal', reason: signal.reason };
  }
  if (signal?.kind === 'blocked') {
    return { accepted: false, kind: 'blocked', reason: signal.question };
  }
  if (signal === null) {
    if (report.exitCode === 0) {
      return {
        accepted: false,
        kind: 'no-signal',
        reason: 'the agent ended without <promise>COMPLETE</promise> or <promise>FAILED</promise>',
      };
    }
    return { accepted: false, kind: 'crash', reason: crashReason(report) };
  }
  if (storyAfter === null) {
    return {
      accepted: false,
      kind: 'tasks-unchecked',
      reason: `${tasksPath} is missing or unreadable after the attempt, so its tasks cannot be checked`,
    };
  }
  if (storyAfter === undefined) {
    return {
      accepted: false,
      kind: 'tasks-unchecked',
      reason: `story ${storyId} is no longer in ${tasksPath}: keep its heading and tasks in place`,
    };
  }
  const unchecked = storyAfter.tasks.filter((t) => !t.done);
  if (unchecked.length > 0) {
    const list = unchecked.map((t) => `- [ ] ${t.id} ${t.description}`).join('\n');
    return {
      accepted: false,
      kind: 'tasks-unchecked',
      reason: `COMPLETE was signalled but ${unchecked.length} task(s) are unchecked in ${tasksPath}:\n${list}`,
    };
  }
  return { accepted: true };
}

function crashReason(report: AttemptReport): string {
  const how =
    report.signal !== null
      ? `the agent was killed by ${report.signal}`
      : `the agent exited with code ${String(report.exitCode)} without a signal`;
  return report.stderrTail ? `${how}; stderr: ${report.stderrTail}` : how;
}
