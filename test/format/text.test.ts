import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { table } from '../../src/format/table.js';
import { clip, columns, fit, oneLine, wrap } from '../../src/format/text.js';

// Widths written out by hand: CJK takes 2 columns, an emoji sequence 2, a letter with a
// combining accent 1.
const FAMILY = '👨\u200d👩\u200d👧'; // man ZWJ woman ZWJ girl: one grapheme, 2 columns
const THUMB = '👍🏽'; // thumbs up with a skin tone: one grapheme, 2 columns
const E_ACUTE = 'e\u0301'; // e + combining acute: one grapheme, 1 column

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const graphemesOf = (text: string): string[] =>
  Array.from(segmenter.segment(text), (s) => s.segment);

describe('columns', () => {
  it('counts terminal columns, not characters', () => {
    expect(columns('abc')).toBe(3);
    expect(columns('日本語')).toBe(6);
    expect(columns(FAMILY)).toBe(2);
    expect(columns(THUMB)).toBe(2);
    expect(columns(E_ACUTE.repeat(3))).toBe(3);
    expect(columns('\u001b[1mbold\u001b[22m')).toBe(4);
  });
});

describe('clip', () => {
  it('keeps ASCII as before', () => {
    expect(clip('abcdef', 4)).toBe('abc…');
    expect(clip('abc', 4)).toBe('abc');
    expect(clip('abc', 0)).toBe('');
  });

  it('cuts CJK to at most the width, the … included, never half a character', () => {
    expect(clip('日本語テキスト', 6)).toBe('日本…');
    expect(clip('日本語テキスト', 7)).toBe('日本語…');
    expect(clip('a日本語', 4)).toBe('a日…');
    expect(clip('日本語', 6)).toBe('日本語');
    expect(clip('日本語', 1)).toBe('…');
  });

  it('never splits an emoji sequence or a letter from its accent', () => {
    expect(clip(FAMILY.repeat(4), 5)).toBe(`${FAMILY}${FAMILY}…`);
    expect(clip(`ab${THUMB}${THUMB}`, 5)).toBe(`ab${THUMB}…`);
    expect(clip(E_ACUTE.repeat(8), 5)).toBe(`${E_ACUTE.repeat(4)}…`);
  });

  it('clips a very long line as it clips a short one (only its start is looked at)', () => {
    const cjk = '日本語テキスト'.repeat(1_000);
    expect(clip(cjk, 40)).toBe(`${cjk.slice(0, 19)}…`);
    // Mostly zero-width marks: the start does not fill the width, so the whole line counts.
    const marks = `a${'\u0301'.repeat(5_000)}bcdef`;
    expect(clip(marks, 4)).toBe(`a${'\u0301'.repeat(5_000)}bc…`);
    expect(clip(marks, 6)).toBe(marks);
    const mixed = `${FAMILY}${'x'.repeat(3_000)}`;
    expect(clip(mixed, 6)).toBe(`${FAMILY}xxx…`);
  });

  it('equals clipping graphemes one by one, for long lines too', () => {
    const unit = fc.constantFrom('a', ' ', '日', FAMILY, THUMB, E_ACUTE, '\u0301');
    fc.assert(
      fc.property(
        fc.array(unit, { maxLength: 600 }),
        fc.integer({ min: 1, max: 80 }),
        (parts, width) => {
          const text = parts.join('');
          const clipped = clip(text, width);
          expect(columns(clipped)).toBeLessThanOrEqual(width);
          if (columns(text) <= width) expect(clipped).toBe(text);
          else {
            expect(clipped.endsWith('…')).toBe(true);
            expect(text.startsWith(clipped.slice(0, -1))).toBe(true);
            // Nothing more would have fitted: the next grapheme is wider than the room left.
            const rest = graphemesOf(text.slice(clipped.length - 1));
            expect(columns(clipped) - 1 + columns(rest[0] ?? '')).toBeGreaterThan(width - 1);
          }
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('fit', () => {
  it('pads to exactly the width in columns', () => {
    expect(fit('ab', 4)).toBe('ab  ');
    expect(fit('日本', 5)).toBe('日本 ');
    expect(fit(E_ACUTE.repeat(2), 4)).toBe(`${E_ACUTE.repeat(2)}  `);
  });

  it('clips, then pads where a wide character did not fit', () => {
    expect(fit('a日本語', 4)).toBe('a日…');
    expect(fit('日本語テキスト', 6)).toBe('日本… ');
    expect(columns(fit('日本語テキスト', 6))).toBe(6);
  });
});

describe('wrap', () => {
  it('keeps ASCII as before', () => {
    expect(wrap('the quick brown fox jumps', 10)).toEqual(['the quick', 'brown fox', 'jumps']);
    expect(wrap('abcdefghijkl', 5, '  ')).toEqual(['abcde', '  fgh', '  ijk', '  l']);
    expect(wrap('', 5)).toEqual(['']);
  });

  it('wraps CJK by columns', () => {
    expect(wrap('日本語のテキストです', 8)).toEqual(['日本語の', 'テキスト', 'です']);
    // An odd width: the character that would straddle the edge starts the next row.
    expect(wrap('日本語のテキスト', 7)).toEqual(['日本語', 'のテキ', 'スト']);
    expect(wrap('日本語のテキスト', 8, '  ')).toEqual(['日本語の', '  テキス', '  ト']);
  });

  it('breaks at a space when one is near, by columns', () => {
    expect(wrap('日本語 テキスト です', 10)).toEqual(['日本語', 'テキスト', 'です']);
  });

  it('never splits an emoji sequence or a letter from its accent', () => {
    expect(wrap(FAMILY.repeat(5), 4)).toEqual([FAMILY.repeat(2), FAMILY.repeat(2), FAMILY]);
    expect(wrap(`a${THUMB}${THUMB}${THUMB}`, 4)).toEqual([`a${THUMB}`, `${THUMB}${THUMB}`]);
    expect(wrap(E_ACUTE.repeat(7), 3)).toEqual([E_ACUTE.repeat(3), E_ACUTE.repeat(3), E_ACUTE]);
  });

  it('gives a character wider than the row a row of its own', () => {
    expect(wrap('日本', 1)).toEqual(['日', '本']);
  });

  it('keeps every row within the width and every grapheme whole, for any text', () => {
    const piece = fc.constantFrom('a', 'b', ' ', '日', 'テ', '한', FAMILY, THUMB, E_ACUTE);
    fc.assert(
      fc.property(
        fc.array(piece, { maxLength: 60 }),
        fc.integer({ min: 3, max: 20 }),
        (parts, width) => {
          const text = parts.join('');
          const rows = wrap(text, width, ' ');
          for (const r of rows) expect(columns(r)).toBeLessThanOrEqual(width);
          const shown = rows.flatMap(graphemesOf).filter((g) => g !== ' ');
          expect(shown).toEqual(graphemesOf(text).filter((g) => g !== ' '));
          expect(columns(clip(text, width))).toBeLessThanOrEqual(width);
          expect(columns(fit(text, width))).toBe(width);
        },
      ),
    );
  });
});

describe('oneLine', () => {
  it('sanitises and squeezes onto one line, with a chosen joiner', () => {
    expect(oneLine(' a\n  b\u001B]0;title\u0007 ')).toBe('a b');
    expect(oneLine('\nfirst\n\n second\t\n', ' | ')).toBe('first | second');
  });
});

describe('table', () => {
  it('aligns columns by terminal width, CJK and colour included', () => {
    expect(
      table([
        ['NAME', 'N'],
        ['名前', '1'],
        ['ab', '2'],
      ]),
    ).toEqual(['NAME  N', '名前  1', 'ab    2']);
    expect(
      table([
        ['変更名', 'x'],
        ['\u001b[1mabc\u001b[22m', 'y'],
        [`${FAMILY}`, 'z'],
      ]),
    ).toEqual(['変更名  x', '\u001b[1mabc\u001b[22m     y', `${FAMILY}      z`]);
  });
});
