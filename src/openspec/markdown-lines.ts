/**
 * Line-level Markdown structure shared by the tasks.md and spec.md readers:
 * ATX headings and fenced code blocks. Hand-written scans instead of regexes so
 * that a 50 MB line of `#` or backticks costs one pass, never a backtracking blow-up.
 */

import { isRegexSpace } from './task-line.js';

export interface Heading {
  level: number;
  /** Heading text without the `#` run, the optional closing `#` run and surrounding spaces. */
  text: string;
}

/** Space or tab; a CR too, so that a CRLF line split on '\n' reads like its LF twin. */
function isBlank(code: number): boolean {
  return code === 0x20 || code === 0x09 || code === 0x0d;
}

/** File content without a leading byte-order mark (Windows editors add one). */
export function stripBom(content: string): string {
  return content.charCodeAt(0) === 0xfeff ? content.slice(1) : content;
}

/** A CommonMark ATX heading: up to 3 spaces, 1 to 6 `#`, then a space, a tab or the end. */
export function parseHeading(line: string): Heading | null {
  let i = 0;
  while (i < 3 && line.charCodeAt(i) === 0x20) i++;
  const hashes = i;
  while (i < line.length && line.charCodeAt(i) === 0x23) i++;
  const level = i - hashes;
  if (level < 1 || level > 6) return null;
  if (i < line.length && !isBlank(line.charCodeAt(i))) return null;
  return { level, text: stripClosingHashes(line.slice(i).trim()) };
}

/** `## Title ##` renders as `Title`; a `#` run only closes the heading after a space (`C#` stays). */
function stripClosingHashes(text: string): string {
  let end = text.length;
  while (end > 0 && text.charCodeAt(end - 1) === 0x23) end--;
  if (end === text.length) return text;
  if (end === 0) return '';
  if (!isBlank(text.charCodeAt(end - 1))) return text;
  return text.slice(0, end).trim();
}

interface Fence {
  char: number;
  length: number;
}

function readFenceRun(line: string): { fence: Fence; end: number } | null {
  let i = 0;
  while (i < line.length && isRegexSpace(line.charCodeAt(i))) i++;
  const char = line.charCodeAt(i);
  if (char !== 0x60 && char !== 0x7e) return null;
  const start = i;
  while (i < line.length && line.charCodeAt(i) === char) i++;
  const length = i - start;
  return length >= 3 ? { fence: { char, length }, end: i } : null;
}

/**
 * Tracks fenced code blocks line by line with OpenSpec's own rule
 * (`dist/core/parsers/code-fence.js`): a run of 3+ backticks or tildes at any
 * indentation opens a block; a run of the same character, at least as long and
 * alone on its line, closes it. Using the same rule as OpenSpec means a heading
 * OpenSpec ignores is ignored here too.
 */
export class FenceTracker {
  private open: Fence | null = null;

  /** True while inside a block, fence lines included. Call once per line, in order. */
  inFence(line: string): boolean {
    const run = readFenceRun(line);
    if (this.open === null) {
      if (run !== null) this.open = run.fence;
      return run !== null;
    }
    if (
      run !== null &&
      run.fence.char === this.open.char &&
      run.fence.length >= this.open.length &&
      line.slice(run.end).trim() === ''
    ) {
      this.open = null;
    }
    return true;
  }

  /** True when this line opened or closed a block (the ``` lines themselves). */
  static isFenceLine(line: string): boolean {
    return readFenceRun(line) !== null;
  }
}
