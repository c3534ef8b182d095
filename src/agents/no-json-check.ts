import { clip, oneLine } from '../format/text.js';

/**
 * Tells early that a JSON-lines agent prints no JSON at all: the program is not the agent's CLI,
 * or a version without the flag that makes it print JSON (`claude` printing its usage text). Pure:
 * it only counts the lines it is shown; run-agent-process.ts keeps the clock and stops the agent.
 *
 * The verdict comes at the first of: NO_JSON_LINES lines, NO_JSON_BYTES bytes, NO_JSON_QUIET_MS
 * after the first line (a program that printed a few lines of text and waits), or the end of the
 * stream; all without one JSON object. A single JSON object line settles it for good.
 */
export const NO_JSON_LINES = 20;
export const NO_JSON_BYTES = 64 * 1024;
/** How long after its first line of text a JSON-lines agent has to print a JSON object. */
export const NO_JSON_QUIET_MS = 5_000;

export type NoJsonVerdict =
  /** A JSON object was seen: the stream is what it should be, never looked at again. */
  | { kind: 'json' }
  /** No line, or too few to tell yet. */
  | { kind: 'undecided'; seenText: boolean }
  /** Enough text and no JSON: `firstLine` is the first non-blank line, for the message. */
  | { kind: 'no-json'; firstLine: string };

export interface NoJsonCheck {
  /** One stdout line; `truncated` when it was cut for being longer than 1 MiB. */
  observe(line: string, truncated: boolean): NoJsonVerdict;
  /** The verdict once nothing more comes (the quiet time ran out, or the stream ended). */
  settle(): NoJsonVerdict;
}

export function createNoJsonCheck(limits: { lines?: number; bytes?: number } = {}): NoJsonCheck {
  const maxLines = limits.lines ?? NO_JSON_LINES;
  const maxBytes = limits.bytes ?? NO_JSON_BYTES;
  let lines = 0;
  let bytes = 0;
  let firstLine: string | null = null;
  let json = false;

  const settle = (): NoJsonVerdict => {
    if (json) return { kind: 'json' };
    if (firstLine === null) return { kind: 'undecided', seenText: false };
    return { kind: 'no-json', firstLine };
  };

  return {
    observe(line, truncated) {
      if (json) return { kind: 'json' };
      // A cut line that starts like an object may well be one (a huge first event): not text.
      if (isJsonObject(line) || (truncated && line.trimStart().startsWith('{'))) {
        json = true;
        return { kind: 'json' };
      }
      lines += 1;
      bytes += Buffer.byteLength(line) + 1;
      if (firstLine === null && line.trim() !== '') firstLine = line;
      if (lines >= maxLines || bytes >= maxBytes) {
        return { kind: 'no-json', firstLine: firstLine ?? '' };
      }
      return { kind: 'undecided', seenText: firstLine !== null };
    },
    settle,
  };
}

function isJsonObject(line: string): boolean {
  const text = line.trim();
  if (!text.startsWith('{')) return false;
  try {
    const value = JSON.parse(text) as unknown;
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

/** How the backend names what it expected, for the message (its fallbacks: the program, its arguments). */
export interface JsonExpectation {
  /** `Claude Code`. */
  product: string;
  /** The flag that makes the CLI print JSON lines: `--output-format stream-json`. */
  flag: string;
  /** What to do, the end of the message. */
  fix: string;
}

/**
 * `Claude Code printed no JSON events (first line: "Usage: claude [options]"): is `claude` the
 * Claude Code CLI, and a version that supports --output-format stream-json? …`.
 */
export function noJsonMessage(
  program: string,
  expected: JsonExpectation,
  firstLine: string,
): string {
  return `${expected.product} printed no JSON events (first line: ${JSON.stringify(clip(oneLine(firstLine), 120))}): is \`${program}\` the ${expected.product} CLI, and a version that supports ${expected.flag}? ${expected.fix}`;
}
