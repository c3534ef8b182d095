import type { AgentEvent, StreamTranslator, TranslatedOutcome } from './types.js';

const DEFAULT_ANSWER_CHARS = 256 * 1024;

/**
 * Reads any program's plain stdout: every line is a message and the final answer is
 * the whole of stdout, of which only the end is kept (signals come last).
 */
export function createCommandTranslator(
  options: { maxAnswerChars?: number } = {},
): StreamTranslator {
  const limit = options.maxAnswerChars ?? DEFAULT_ANSWER_CHARS;
  let answer = '';
  return {
    push(line): AgentEvent[] {
      answer += `${line}\n`;
      // Trim in batches so that a long run of short lines stays cheap.
      if (answer.length > 2 * limit) answer = answer.slice(answer.length - limit);
      return line.trim() === '' ? [] : [{ type: 'message', text: line }];
    },
    finish(): TranslatedOutcome {
      const finalAnswer = answer.length > limit ? answer.slice(answer.length - limit) : answer;
      return { finalAnswer, agentError: null, fatal: null };
    },
  };
}
