import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { DRAWN_NARROW, plainColumns } from '../../src/format/plain-width.js';
import { makeStyle } from '../../src/format/style.js';
import { columns } from '../../src/format/text.js';

// `list` measures its table with plainColumns alone when every cell allows it
// (src/format/plain-width.ts): where it answers, it must answer what string-width does.

const style = makeStyle(true);
const colours = [style.bold, style.dim, style.green, style.red, style.yellow, style.cyan];

const plainPiece = fc.oneof(
  fc.string({ unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)) }),
  fc.constantFrom(...DRAWN_NARROW),
);
const plainText = fc
  .array(fc.tuple(plainPiece, fc.integer({ min: -1, max: colours.length - 1 })), { maxLength: 12 })
  .map((parts) => parts.map(([text, c]) => (c < 0 ? text : (colours[c] ?? String)(text))).join(''));

describe('plainColumns', () => {
  it('measures ASCII, drawn characters and colour codes as string-width does', () => {
    fc.assert(
      fc.property(plainText, (text) => {
        expect(plainColumns(text)).toBe(stringWidth(text));
        expect(plainColumns(text)).toBe(columns(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('leaves every other text to string-width', () => {
    // Any character but printable ASCII and the drawn ones, and escapes that are not colours.
    const odd = fc.oneof(
      fc.constantFrom('\t', '\u0007', '\u001b', '\u001b]8;;x\u0007', '\u001b[2J', 'e\u0301'),
      fc
        .integer({ min: 0x7f, max: 0x10ffff })
        .map((code) => String.fromCodePoint(code))
        .filter((char) => !DRAWN_NARROW.has(char)),
    );
    fc.assert(
      fc.property(plainText, odd, plainText, (before, char, after) => {
        expect(plainColumns(`${before}${char}${after}`)).toBeNull();
      }),
      { numRuns: 2000 },
    );
  });
});
