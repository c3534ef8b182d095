import fc from 'fast-check';
import stringWidth from 'string-width';
import { describe, expect, it } from 'vitest';
import { graphemes } from '../../src/format/graphemes.js';
import { DRAWN_NARROW } from '../../src/format/plain-width.js';
import { columns } from '../../src/format/text.js';

const segmenter = new Intl.Segmenter(undefined, { granularity: 'grapheme' });
const segmented = (text: string): string[] => Array.from(segmenter.segment(text), (s) => s.segment);

// Characters that join into one grapheme, and plain ones around them.
const tricky = fc.constantFrom(
  'a',
  ' ',
  '日',
  '한', // a precomposed syllable: joins a following vowel or final jamo
  '\u1100', // a leading jamo
  '\u1161', // a vowel jamo
  '\u11a8', // a final jamo
  '\u0301', // a combining accent
  '\u0915', // Devanagari KA
  '\u094d', // virama
  '\u0e01', // Thai KO KAI
  '\u0e33', // Thai SARA AM (a spacing mark that is a letter)
  '\u0600', // a prepended Arabic sign
  '\u200d', // zero-width joiner
  '\u200c', // zero-width non-joiner
  '\ufe0f', // emoji presentation selector
  '\uff76', // halfwidth katakana KA
  '\uff9e', // halfwidth voiced sound mark
  '👍',
  '🏽', // skin tone
  '🇯', // regional indicators
  '🇵',
  '\r',
  '\n',
);

describe('graphemes', () => {
  it('splits text exactly as Intl.Segmenter does, fast paths included', () => {
    fc.assert(
      fc.property(fc.array(tricky, { maxLength: 30 }), (parts) => {
        const text = parts.join('');
        expect(graphemes(text).map((g) => g.text)).toEqual(segmented(text));
      }),
      { numRuns: 2000 },
    );
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 30 }), (text) => {
        expect(graphemes(text).map((g) => g.text)).toEqual(segmented(text));
      }),
    );
  });

  it('measures as string-width does, a grapheme at a time', () => {
    fc.assert(
      fc.property(fc.array(tricky, { maxLength: 30 }), (parts) => {
        const text = parts.join('');
        expect(columns(text)).toBe(stringWidth(text));
      }),
      { numRuns: 2000 },
    );
  });

  it('takes the characters ralphtool draws as one column each, as string-width does', () => {
    expect(DRAWN_NARROW.size).toBeGreaterThan(30);
    for (const char of DRAWN_NARROW) {
      expect([char, stringWidth(char)]).toEqual([char, 1]);
      expect(graphemes(`a${char}b`).map((g) => g.width)).toEqual([1, 1, 1]);
    }
  });
});
