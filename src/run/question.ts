import { blockedLine, blockedNext } from '../core/question.js';
import { oneLine } from '../format/text.js';
import { UsageError } from '../core/errors.js';
import { openQuestion, type RunState } from '../checkpoint/index.js';

/**
 * `resume` and the question a blocked run asked (docs/contract.md, "Questions"): a run that
 * waits for an answer needs one, and an answer needs a question. Checked before anything
 * changes, so a refusal leaves the run and the repository as they were.
 */
export function assertAnswerFits(state: RunState, answer: string | null): void {
  const open = openQuestion(state);
  if (open !== null && answer === null) {
    throw new UsageError(
      `the run of ${state.change} is ${blockedLine(open.storyId, oneLine(open.text))}; ${blockedNext(state.change)}`,
    );
  }
  if (answer !== null && (state.question ?? null) === null) {
    throw new UsageError(
      `--answer: the run of ${state.change} asks no question; resume it without --answer: \`ralphtool resume ${state.change}\``,
    );
  }
}
