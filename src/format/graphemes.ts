import stringWidth from 'string-width';
import { DRAWN_NARROW } from './plain-width.js';

/**
 * Text split into graphemes (what a reader sees as one character) with the terminal columns
 * each takes. The screens re-wrap the whole agent transcript on every frame, and
 * Intl.Segmenter and string-width cost about a tenth of a millisecond per line, so two fast
 * paths keep that cheap: text with nothing that joins characters into one grapheme is split
 * per UTF-16 unit, and the width of each distinct grapheme is remembered.
 */
export interface Grapheme {
  text: string;
  width: number;
}

export function graphemes(text: string): Grapheme[] {
  if (PRINTABLE_ASCII.test(text)) return Array.from(text, (c) => ({ text: c, width: 1 }));
  if (!JOINS_CHARACTERS.test(text)) return Array.from(text, measured);
  return Array.from(segmenter.segment(text), ({ segment }) => measured(segment));
}

/**
 * Where the graphemes of `text` start and the columns each takes, one at a time, for work that
 * stops early (clipping a long line needs only its first few dozen columns). Calls `visit`
 * until it returns false. Text with nothing that joins characters takes a plain loop over its
 * UTF-16 units: a flood of long agent lines goes through here line by line.
 */
export function eachGrapheme(text: string, visit: (start: number, width: number) => boolean): void {
  if (!JOINS_CHARACTERS.test(text)) {
    for (let start = 0; start < text.length; start += 1) {
      const code = text.charCodeAt(start);
      const width = code >= 0x20 && code < 0x7f ? 1 : measured(text.charAt(start)).width;
      if (!visit(start, width)) return;
    }
    return;
  }
  for (const { segment, index } of segmenter.segment(text)) {
    if (!visit(index, measured(segment).width)) return;
  }
}

export const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

/**
 * Anything that can make a grapheme of more than one UTF-16 unit (Unicode's grapheme
 * cluster rules, UAX #29): code points past the BMP (emoji, their skin tones, flags, tags)
 * and lone surrogates, marks (accents, viramas, variation selectors), zero-width
 * (non-)joiners, Hangul jamo, the halfwidth sound marks, prepended signs, Thai and Lao
 * SARA AM, and carriage returns. Text without any of them is one grapheme per unit.
 */
const JOINS_CHARACTERS =
  /[\u{10000}-\u{10ffff}\ud800-\udfff\p{M}\u1100-\u11ff\ua960-\ua97f\ud7b0-\ud7ff\uff9e\uff9f\u0600-\u0605\u06dd\u070f\u0890\u0891\u08e2\u0d4e\u0e33\u0eb3\r]|\u200c|\u200d/u;

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/** Distinct graphemes seen so far and their widths; emptied when it grows past its bound. */
const widths = new Map<string, number>();
const MAX_REMEMBERED = 10_000;

function measured(text: string): Grapheme {
  if (DRAWN_NARROW.has(text)) return { text, width: 1 };
  let width = widths.get(text);
  if (width === undefined) {
    width = stringWidth(text);
    if (widths.size >= MAX_REMEMBERED) widths.clear();
    widths.set(text, width);
  }
  return { text, width };
}
