import { LIMIT_KINDS, type LimitKind } from '../core/events.js';
import { lastSignalText } from '../core/signal.js';
import type { AgentEvent, AgentLimit, StreamTranslator, TranslatedOutcome } from './types.js';

/**
 * The `command` agent's limit convention (docs/contract.md, "Usage limits"): exit code 75
 * (EX_TEMPFAIL) means "limited, try later"; a line `ralphtool-resets-at: <time>` on stdout or
 * stderr (ISO 8601, or Unix seconds) says when. The last such line counts. A line
 * `ralphtool-limit-kind: <usage|rate|overloaded|server|connection>` says what kind it is (a
 * transient API error is retried sooner, a few times only); without it: usage with a reset
 * time, rate without.
 */
export const LIMIT_EXIT_CODE = 75;
const RESETS_AT = /^\s*ralphtool-resets-at:\s*(\S+)\s*$/im;
const LIMIT_KIND = /^\s*ralphtool-limit-kind:\s*(\S+)\s*$/im;

/** The reset time of a `ralphtool-resets-at:` value as ISO 8601; null when it is not a time. */
export function parseResetsAt(value: string): string | null {
  const ms = /^\d+(?:\.\d+)?$/.test(value) ? Number(value) * 1000 : Date.parse(value);
  return Number.isFinite(ms) ? new Date(ms).toISOString() : null;
}

function commandLimit(lines: readonly string[]): AgentLimit {
  let resetsAt: string | null = null;
  let kind: LimitKind | null = null;
  for (const line of lines) {
    const match = RESETS_AT.exec(line);
    if (match?.[1] !== undefined) resetsAt = parseResetsAt(match[1]) ?? resetsAt;
    const named = LIMIT_KIND.exec(line)?.[1];
    if (named !== undefined) kind = LIMIT_KINDS.find((k) => k === named) ?? kind;
  }
  return {
    kind: kind ?? (resetsAt === null ? 'rate' : 'usage'),
    resetsAt,
    source: `exit ${LIMIT_EXIT_CODE}`,
    message:
      resetsAt === null
        ? `the agent exited with code ${LIMIT_EXIT_CODE} (try again later)`
        : `the agent exited with code ${LIMIT_EXIT_CODE}; its limit resets at ${resetsAt}`,
  };
}

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
  // `ralphtool-resets-at:` lines seen on stdout (only read when the agent exits with 75).
  const resetLines: string[] = [];
  const trim = (): void => {
    const cut = answer.length - limit;
    const signal = lastSignalText(answer.slice(0, cut + SIGNAL_OVERLAP_CHARS));
    if (signal !== null) carried = signal;
    answer = answer.slice(cut);
  };
  return {
    // Any program's stdout: text, so a stream without JSON is no sign of a wrong program.
    format: 'text',
    push(line): AgentEvent[] {
      answer += `${line}\n`;
      if (/ralphtool-(?:resets-at|limit-kind):/.test(line)) resetLines.push(line);
      // Trim in batches so that a long run of short lines stays cheap.
      if (answer.length > 2 * limit) trim();
      return line.trim() === '' ? [] : [{ type: 'message', text: line }];
    },
    finish(stderrTail, exitCode): TranslatedOutcome {
      if (answer.length > limit) trim();
      const finalAnswer = carried ? `${carried}\n${answer}` : answer;
      const limited =
        exitCode === LIMIT_EXIT_CODE
          ? commandLimit([...resetLines, ...stderrTail.split('\n')])
          : null;
      return { finalAnswer, agentError: null, fatal: null, limit: limited };
    },
  };
}
