/**
 * The task-line rule of the OpenSpec CLI, re-implemented as a linear scan.
 *
 * docs/contract.md ("Reading tasks.md") says our task set and counts must equal what `openspec list --json`
 * reports, so this follows OpenSpec's `TASK_LINE_PATTERN`
 * (`dist/utils/task-progress.js`) exactly:
 *
 *   /^\s*(?:[-*+]|\d{1,9}[.)])\s*\[(?:\s*([^\]\s]?)\s*\](?![([])|\s+\])\s*(.*)/
 *
 * with content split on '\n' only, and a task done iff its marker, lower-cased,
 * is 'x'. We do not run that regex itself: `\s*([^\]\s]?)\s*\]` backtracks
 * quadratically on a long run of spaces after `[`, which a malformed or hostile
 * tasks.md could contain. Every step below is one left-to-right pass, and a
 * property test checks it against the regex character for character.
 */

export interface TaskLine {
  done: boolean;
  /** Text after the checkbox, trimmed (OpenSpec's `description`). */
  description: string;
  /** Width of the leading whitespace, tabs counted to the next multiple of 4. */
  indent: number;
}

/** Characters `\s` matches in a JavaScript regex without the `u` flag. */
export function isRegexSpace(code: number): boolean {
  switch (code) {
    case 0x09:
    case 0x0a:
    case 0x0b:
    case 0x0c:
    case 0x0d:
    case 0x20:
    case 0xa0:
    case 0x1680:
    case 0x2028:
    case 0x2029:
    case 0x202f:
    case 0x205f:
    case 0x3000:
    case 0xfeff:
      return true;
    default:
      return code >= 0x2000 && code <= 0x200a;
  }
}

/** Characters `.` does not match: the line terminators (no '\n' can occur here). */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39;
}

function skipSpaces(line: string, from: number): number {
  let i = from;
  while (i < line.length && isRegexSpace(line.charCodeAt(i))) i++;
  return i;
}

/** Index just past the list marker (`-`, `*`, `+`, `1.`, `1)`), or -1. */
function endOfListMarker(line: string, at: number): number {
  const code = line.charCodeAt(at);
  if (code === 0x2d || code === 0x2a || code === 0x2b) return at + 1;
  let i = at;
  while (i < line.length && isDigit(line.charCodeAt(i))) i++;
  const digits = i - at;
  if (digits < 1 || digits > 9) return -1;
  const next = line.charCodeAt(i);
  return next === 0x2e || next === 0x29 ? i + 1 : -1;
}

interface Box {
  /** Index just past the closing `]`. */
  end: number;
  marker: string;
}

/**
 * Reads the box after `[`. Neither `\s` nor `[^\]\s]` can match `]`, so the
 * regex can only close the box at the first `]`: what lies between must be
 * whitespace around at most one other character. A box that is followed by `(`
 * or `[` (a link) still counts when it holds only whitespace (the `\s+\]` branch).
 */
function readBox(line: string, open: number): Box | null {
  const close = line.indexOf(']', open + 1);
  if (close < 0) return null;
  let marker = '';
  let blanks = 0;
  for (let i = open + 1; i < close; i++) {
    const code = line.charCodeAt(i);
    if (isRegexSpace(code)) {
      blanks++;
    } else if (marker === '') {
      marker = line.charAt(i);
    } else {
      return null;
    }
  }
  const after = line.charCodeAt(close + 1);
  const looksLikeLink = after === 0x28 || after === 0x5b;
  if (!looksLikeLink) return { end: close + 1, marker };
  return marker === '' && blanks > 0 ? { end: close + 1, marker: '' } : null;
}

function indentWidth(line: string, end: number): number {
  let width = 0;
  for (let i = 0; i < end; i++) {
    width = line.charCodeAt(i) === 0x09 ? width + 4 - (width % 4) : width + 1;
  }
  return width;
}

/** The task on one line of tasks.md, or null when OpenSpec would not count the line. */
export function parseTaskLine(line: string): TaskLine | null {
  const markerAt = skipSpaces(line, 0);
  const afterMarker = endOfListMarker(line, markerAt);
  if (afterMarker < 0) return null;
  const open = skipSpaces(line, afterMarker);
  if (line.charCodeAt(open) !== 0x5b) return null;
  const box = readBox(line, open);
  if (box === null) return null;
  const textStart = skipSpaces(line, box.end);
  // The text runs to the first line terminator: found by the regex engine (one native pass,
  // no backtracking), not a loop over each character, which `list` paid per task line before
  // its code was compiled (~4 µs a line, most of reading 100 changes' tasks.md).
  const text = line.slice(textStart);
  const terminator = text.search(LINE_TERMINATOR);
  return {
    done: box.marker.toLowerCase() === 'x',
    description: (terminator < 0 ? text : text.slice(0, terminator)).trim(),
    indent: indentWidth(line, markerAt),
  };
}
