import { sanitizeForTerminal } from './sanitize.js';

/**
 * Text helpers for the screens. Everything that came from outside (agent output,
 * tasks.md, git) passes through `clean` before it is stored or drawn, so it can
 * never move the cursor or break the frame.
 */

/** Sanitised, tabs expanded: still may contain newlines. */
export function clean(text: string): string {
  return sanitizeForTerminal(text).replace(/\t/g, '  ');
}

/** Sanitised and squeezed onto one line. */
export function oneLine(text: string): string {
  return clean(text)
    .replace(/\s*\n\s*/g, ' ')
    .trim();
}

/** Cuts a line to `width` characters, marking the cut with `…`. */
export function clip(text: string, width: number): string {
  if (width <= 0) return '';
  const chars = [...text];
  if (chars.length <= width) return text;
  return `${chars.slice(0, Math.max(0, width - 1)).join('')}…`;
}

/** Pads or clips to exactly `width` characters (for columns). */
export function fit(text: string, width: number): string {
  const clipped = clip(text, width);
  return clipped + ' '.repeat(Math.max(0, width - [...clipped].length));
}

/** Breaks one line into rows of at most `width` characters, at a space when one is near. */
export function wrap(text: string, width: number, indent = ''): string[] {
  const size = Math.max(1, width);
  const rows: string[] = [];
  let rest = [...text];
  let prefix = '';
  while (prefix.length + rest.length > size) {
    const room = Math.max(1, size - prefix.length);
    let cut = room;
    const space = rest.slice(0, room + 1).lastIndexOf(' ');
    if (space > room / 2) cut = space;
    rows.push(prefix + rest.slice(0, cut).join('').trimEnd());
    rest = rest.slice(cut);
    while (rest[0] === ' ') rest = rest.slice(1);
    prefix = indent;
  }
  rows.push(prefix + rest.join(''));
  return rows;
}

export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
