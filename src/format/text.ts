import stringWidth from 'string-width';
import { eachGrapheme, graphemes, PRINTABLE_ASCII, type Grapheme } from './graphemes.js';
export { clean, oneLine, textLines } from './clean.js';

/**
 * Text helpers for the screens and the plain output. Everything that came from outside
 * (agent output, tasks.md, git) passes through `clean` before it is stored or drawn, so
 * it can never move the cursor or break the frame.
 *
 * Widths are terminal columns, not characters: `日本語` takes 6 columns and a family emoji
 * built with zero-width joiners takes 2, so counting code points would let a line run past
 * the edge, where Ink cuts it off. Text is cut only between graphemes (what a reader sees as
 * one character), so an emoji sequence or a letter with its accent is never split.
 */

/** The columns `text` takes on a terminal (colour codes take none). */
export function columns(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  if (text.includes('\u001b')) return stringWidth(text);
  let total = 0;
  for (const grapheme of graphemes(text)) total += grapheme.width;
  return total;
}

/** Cuts plain text to at most `width` columns, the `…` that marks the cut included. */
export function clip(text: string, width: number): string {
  if (width <= 0) return '';
  if (PRINTABLE_ASCII.test(text)) {
    return text.length <= width ? text : `${text.slice(0, width - 1)}…`;
  }
  // Walks only as far as the width reaches: a flood of long agent lines is clipped line by
  // line, and splitting each whole line into graphemes would cost more than the rest.
  let used = 0;
  let cut = -1;
  let over = false;
  eachGrapheme(text, (start, columnsOfGrapheme) => {
    if (cut < 0 && used + columnsOfGrapheme > width - 1) cut = start;
    used += columnsOfGrapheme;
    over = used > width;
    return !over;
  });
  return over ? `${text.slice(0, cut)}…` : text;
}

/** Clips or pads plain text to exactly `width` columns (for columns of a table or list). */
export function fit(text: string, width: number): string {
  const clipped = clip(text, width);
  return clipped + ' '.repeat(Math.max(0, width - columns(clipped)));
}

/**
 * Breaks one line of plain text into rows of at most `width` columns, at a space when one
 * is in the second half of the row; later rows start with `indent`. A grapheme wider than
 * the whole row still gets a row of its own rather than being lost.
 */
export function wrap(text: string, width: number, indent = ''): string[] {
  const size = Math.max(1, width);
  // Most lines are short plain text: skip splitting them.
  if (PRINTABLE_ASCII.test(text) && text.length <= size) return [text];
  const indentWidth = columns(indent);
  const rows: string[] = [];
  let rest = graphemes(text);
  let restWidth = sumWidths(rest);
  let prefix = '';
  let prefixWidth = 0;
  // The last grapheme always ends up on the last row, even one wider than the row.
  while (prefixWidth + restWidth > size && rest.length > 1) {
    const room = Math.max(1, size - prefixWidth);
    const cut = cutIndex(rest, room);
    const head = rest.slice(0, cut);
    rows.push(prefix + joined(head).trimEnd());
    let next = cut;
    while (rest[next]?.text === ' ') next += 1;
    restWidth -= sumWidths(rest.slice(0, next));
    rest = rest.slice(next);
    prefix = indent;
    prefixWidth = indentWidth;
  }
  rows.push(prefix + joined(rest));
  return rows;
}

/** Where to end a row of `room` columns: after the graphemes that fit, or at a near space. */
function cutIndex(rest: readonly Grapheme[], room: number): number {
  let fits = 0;
  let used = 0;
  let space = -1;
  while (fits < rest.length) {
    const grapheme = rest[fits];
    if (grapheme === undefined) break;
    // A space right after the last grapheme that fits is still a clean break.
    if (grapheme.text === ' ' && used > room / 2) space = fits;
    if (used + grapheme.width > room) break;
    used += grapheme.width;
    fits += 1;
  }
  if (space > 0) return space;
  return Math.max(1, fits);
}

function joined(list: readonly Grapheme[]): string {
  return list.map((g) => g.text).join('');
}

function sumWidths(list: readonly Grapheme[]): number {
  return list.reduce((n, g) => n + g.width, 0);
}
