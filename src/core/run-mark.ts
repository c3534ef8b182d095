import type { CompletionChoice, RunOutcome } from './events.js';

/**
 * How a recorded run waits for the user (the change lists mark it, `status` says it):
 * `interrupted` (the loop stopped before it ended: a crash, a quit at once, a fatal error),
 * `waiting` (the loop ended and no completion choice was made), `kept-incomplete` (kept with
 * stories left: it can be resumed), `blocked` (the agent asked a question that waits for
 * `resume --answer`), `kept` (finished and kept: its work waits on `ralph/<change>` to be merged;
 * nothing to resume or finish).
 */
export type RunMark = 'interrupted' | 'waiting' | 'kept-incomplete' | 'blocked' | 'kept';

/** The fields of a recorded run that decide its mark. */
export interface MarkedRunRecord {
  status: 'active' | 'finished';
  outcome: RunOutcome | null;
  choice: CompletionChoice | null;
  /** The question a BLOCKED attempt asked; open while `answer` is null. */
  question?: { answer: string | null } | null | undefined;
}

/** The run's mark; null for a run finished with a cleanup (its work is back with the user). */
export function runMark(run: MarkedRunRecord): RunMark | null {
  if (run.status === 'finished') return run.choice === 'keep' ? 'kept' : null;
  if (run.question && run.question.answer === null) return 'blocked';
  if (run.choice === 'keep') return 'kept-incomplete';
  if (run.outcome !== null && run.outcome !== 'error') return 'waiting';
  return 'interrupted';
}

/** The commands that continue or end a kept incomplete run, as `status` prints them. */
export function keptIncompleteNext(change: string): string {
  return `kept incomplete: resume with \`ralphtool resume ${change}\` or finish with \`ralphtool finish ${change} --cleanup|--keep\``;
}
