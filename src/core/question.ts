/**
 * The words about a question a blocked run asked (docs/contract.md, "Questions"), said the
 * same way by the progress lines, `status`, the UI and the refusal of `resume` without answer.
 * The question is passed already made safe and on one line (format/text's `oneLine`).
 */

/** The exact command that answers the question of `change`'s run. */
export function answerCommand(change: string, rt = 'ralphtool'): string {
  return `${rt} resume ${change} --answer "…"`;
}

/** Which story asks what. */
export function blockedLine(storyId: string, question: string): string {
  return `blocked: story ${storyId} asks: ${question}`;
}

/** The way on for a blocked run: the answer, or ending the run. */
export function blockedNext(change: string, rt = 'ralphtool'): string {
  return `answer with \`${answerCommand(change, rt)}\` (or --answer-file <file>), or end it: \`${rt} finish ${change} --cleanup|--keep\``;
}
