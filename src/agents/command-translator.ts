import { lastSignalText } from '../core/signal.js';
import type { AgentEvent, StreamTranslator, TranslatedOutcome } from './types.js';

const DEFAULT_ANSWER_CHARS = 256 * 1024;
/** How far into the kept part a signal that starts in the cut part may reach. */
const SIGNAL_OVERLAP_CHARS = 8 * 1024;

/**
 * Reads any program's plain stdout: every line is a message and the final answer is
 * the whole of stdout, of which only the end is kept (signals come last).
 */
export function createCommandTranslator(
  options: { maxAnswerChars?: number } = {},
): StreamTranslator {
  const limit = options.maxAnswerChars ?? DEFAULT_ANSWER_CHARS;
  let answer = '';
  // The last signal of the part of stdout that was trimmed away: output printed after a
  // signal must not make it vanish (the last signal of the whole answer counts).
  let carried = '';
  const trim = (): void => {
    const cut = answer.length - limit;
    const signal = lastSignalText(answer.slice(0, cut + SIGNAL_OVERLAP_CHARS));
    if (signal !== null) carried = signal;
    answer = answer.slice(cut);
  };
  return {
    push(line): AgentEvent[] {
      answer += `${line}\n`;
      // Trim in batches so that a long run of short lines stays cheap.
      if (answer.length > 2 * limit) trim();
      return line.trim() === '' ? [] : [{ type: 'message', text: line }];
    },
    finish(): TranslatedOutcome {
      if (answer.length > limit) trim();
      const finalAnswer = carried ? `${carried}\n${answer}` : answer;
      return { finalAnswer, agentError: null, fatal: null };
    },
  };
}
