import { describe, expect, it } from 'vitest';
import { anchorFromTop, topFromAnchor } from '../../src/ui/state/line-anchor.js';
import { emptyList, keepInView, moveSelection } from '../../src/ui/state/list.js';
import { noPresses, pressesLeft, pressQuit } from '../../src/ui/state/quit-presses.js';
import { clampTop, scrollBy, scrollFollowBy } from '../../src/ui/state/scroll.js';
import { appendLines, emptyTranscript, textLines } from '../../src/ui/state/transcript.js';

describe('list selection', () => {
  it('wraps at both ends', () => {
    expect(moveSelection(emptyList, -1, 5, 10).selected).toBe(4);
    expect(moveSelection({ selected: 4, top: 0 }, 1, 5, 10).selected).toBe(0);
    expect(moveSelection(emptyList, 1, 0, 10)).toEqual(emptyList);
  });

  it('scrolls a long list so the selection stays in view', () => {
    let list = emptyList;
    for (let i = 0; i < 12; i += 1) list = moveSelection(list, 1, 30, 5);
    expect(list).toEqual({ selected: 12, top: 8 });
    list = moveSelection(list, -1, 30, 5);
    expect(list.top).toBe(8);
    // Wrapping to the top brings the window back to the start.
    list = moveSelection({ selected: 29, top: 25 }, 1, 30, 5);
    expect(list).toEqual({ selected: 0, top: 0 });
    list = moveSelection(list, -1, 30, 5);
    expect(list).toEqual({ selected: 29, top: 25 });
  });

  it('never leaves empty space after the end', () => {
    expect(keepInView(20, 22, 25, 10)).toBe(15);
    expect(keepInView(6, 2, 3, 10)).toBe(0);
  });
});

describe('clamped scrolling', () => {
  const size = { total: 10, viewport: 4 };

  it('stops at both ends so no press is wasted', () => {
    expect(scrollBy(0, -3, size)).toBe(0);
    let top = 0;
    for (let i = 0; i < 20; i += 1) top = scrollBy(top, 1, size);
    expect(top).toBe(6);
    expect(scrollBy(top, -1, size)).toBe(5);
    expect(clampTop(99, { total: 2, viewport: 4 })).toBe(0);
  });

  it('leaves follow mode when scrolled up and resumes it at the bottom', () => {
    const following = { top: 0, follow: true };
    const up = scrollFollowBy(following, -2, size);
    expect(up).toEqual({ top: 4, follow: false });
    // More rows arrived meanwhile: scrolling on starts where the user was.
    const more = { total: 15, viewport: 4 };
    expect(scrollFollowBy(up, 1, more)).toEqual({ top: 5, follow: false });
    expect(scrollFollowBy(up, 100, more)).toEqual({ top: 11, follow: true });
    expect(scrollFollowBy(following, 0, more)).toEqual({ top: 11, follow: true });
  });
});

describe('q three times within 3 s', () => {
  it('stops on the first press and quits at once on the third within the window', () => {
    const first = pressQuit(noPresses, 1000, false);
    expect(first.decision).toBe('stop');
    expect(pressesLeft(first.presses, 1000)).toBe(2);
    const second = pressQuit(first.presses, 2000, true);
    expect(second.decision).toBe('again');
    expect(pressQuit(second.presses, 3999, true).decision).toBe('force-quit');
  });

  it('forgets presses older than 3 s', () => {
    const a = pressQuit(noPresses, 0, false).presses;
    const b = pressQuit(a, 1000, true).presses;
    const c = pressQuit(b, 3000, true);
    expect(c.decision).toBe('again');
    expect(pressesLeft(c.presses, 3000)).toBe(1);
    expect(pressesLeft(c.presses, 10_000)).toBe(3);
  });
});

describe('bounded transcripts', () => {
  it('keeps the newest lines and counts the dropped ones', () => {
    let t = emptyTranscript;
    for (let i = 0; i < 25; i += 1) {
      t = appendLines(t, [{ kind: 'text', text: `line ${i}` }], 10);
    }
    expect(t.lines).toHaveLength(10);
    expect(t.lines[0]?.text).toBe('line 15');
    expect(t.dropped).toBe(15);
  });

  it('splits agent text into clean lines', () => {
    expect(textLines('\n\nhello\u001B[2J\u001B[31m red\u001B[0m\r\n\n\n\tworld\u0007\n\n')).toEqual(
      ['hello red', '', '  world�'],
    );
  });
});

describe('line anchors', () => {
  // Two marker rows, then lines 100.. starting at rows 2, 3, 6, 7.
  const map = { firstLine: 100, starts: [2, 3, 6, 7], total: 8 };

  it('turns a top row into the line shown there and back', () => {
    expect(anchorFromTop(4, map)).toEqual({ line: 101, row: 1 });
    expect(anchorFromTop(7, map)).toEqual({ line: 103, row: 0 });
    expect(anchorFromTop(1, map)).toEqual({ line: 100, row: -1 });
    for (let top = 0; top < 8; top += 1)
      expect(topFromAnchor(anchorFromTop(top, map), map)).toBe(top);
  });

  it('keeps showing the same line after older lines were dropped', () => {
    const anchor = anchorFromTop(6, map);
    // Line 100 dropped: the marker grew to 3 rows, everything else moved.
    const later = { firstLine: 101, starts: [3, 6, 7, 9], total: 10 };
    expect(topFromAnchor(anchor, later)).toBe(6);
    // Its line is gone too: show the start (the marker).
    expect(topFromAnchor({ line: 100, row: 0 }, later)).toBe(0);
  });
});
