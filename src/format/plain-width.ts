/**
 * The columns of text that needs no Unicode tables to measure: printable ASCII, the characters
 * ralphtool draws itself and colour codes. `list` lays out its table with it alone: string-width
 * (Intl.Segmenter and its emoji expressions) takes about as long to load as the rest of `list`.
 */

/**
 * The characters ralphtool draws itself (bars, arrows, marks, rules), one column each, as
 * string-width says (test/format/graphemes.test.ts checks it): known without calling it, whose
 * first call compiles its emoji expression (~70 ms, most of what `list` spent on its table).
 */
export const DRAWN_NARROW = new Set('·…↓—›↑✗✓⏸⇄→⚠–×─←⟳●○▶↺◉▸■░█│⇡‹•┌┐└┘├┤');

/** `ESC [ params m`: a colour or weight (format/style.ts writes only these). */
// eslint-disable-next-line no-control-regex -- the escape character is what it matches
const SGR = /\u001b\[[0-9;]*m/y;

/**
 * The columns `text` takes when it is made only of printable ASCII, drawn characters and
 * colour codes (which take none); null for any other text, which needs string-width
 * (format/text.ts `columns`).
 */
export function plainColumns(text: string): number | null {
  let width = 0;
  let i = 0;
  while (i < text.length) {
    const code = text.charCodeAt(i);
    if (code >= 0x20 && code < 0x7f) {
      width++;
      i++;
    } else if (code === 0x1b) {
      SGR.lastIndex = i;
      if (!SGR.test(text)) return null;
      i = SGR.lastIndex;
    } else if (DRAWN_NARROW.has(text.charAt(i))) {
      width++;
      i++;
    } else {
      return null;
    }
  }
  return width;
}
