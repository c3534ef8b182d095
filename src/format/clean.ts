import { sanitizeForTerminal } from './sanitize.js';

// The text helpers that need no widths (format/text.ts re-exports them): the program's error
// line uses `clean`, and loading it must not load string-width.

/** Sanitised, tabs expanded: still may contain newlines. */
export function clean(text: string): string {
  return sanitizeForTerminal(text).replace(/\t/g, '  ');
}

/** Sanitised and squeezed onto one line, its line breaks shown as `joiner`. */
export function oneLine(text: string, joiner = ' '): string {
  return clean(text)
    .trim()
    .replace(/\s*\n\s*/g, joiner);
}

/** Splits agent text into clean lines, without leading/trailing or repeated blank lines. */
export function textLines(text: string): string[] {
  const lines = clean(text)
    .split('\n')
    .map((l) => l.trimEnd());
  const out: string[] = [];
  for (const line of lines) {
    if (line === '' && (out.length === 0 || out[out.length - 1] === '')) continue;
    out.push(line);
  }
  while (out.length > 0 && out[out.length - 1] === '') out.pop();
  return out;
}
