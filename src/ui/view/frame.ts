import type { RowMap } from '../state/line-anchor.js';
import { clip, columns } from '../../format/text.js';

/**
 * A screen as plain data: header rows, a scrollable body and footer rows, each row
 * a list of styled segments. Screens are built by pure functions and drawn by one
 * Ink component, so the layout can be tested without a terminal and always fits.
 */
export type Tone = 'plain' | 'dim' | 'title' | 'accent' | 'good' | 'bad' | 'warn' | 'selected';

export interface Segment {
  text: string;
  tone?: Tone;
}

export type Row = Segment[];

export interface Frame {
  header: Row[];
  /** Every row of the body; `top` and `height` say which are shown. */
  body: Row[];
  top: number;
  height: number;
  footer: Row[];
  /** For a transcript body: where each line starts, to anchor the scroll position. */
  rowMap?: RowMap;
  /**
   * Say so in the last row when more of the body lies below the window (a pane the user
   * scrolls with PgDn; not a list whose selected row could be that last one).
   */
  moreBelowHint?: boolean;
}

export interface Size {
  columns: number;
  rows: number;
}

export const MIN_COLUMNS = 60;
export const MIN_ROWS = 20;

export function isTooSmall(size: Size): boolean {
  return size.columns < MIN_COLUMNS || size.rows < MIN_ROWS;
}

/** Rows a screen may use: one less than the terminal so Ink never scrolls it. */
export function usableRows(size: Size): number {
  return Math.max(1, size.rows - 1);
}

export function row(text: string, tone: Tone = 'plain'): Row {
  return [{ text, tone }];
}

export const blank: Row = [{ text: '' }];

/** Cuts a row to `width` terminal columns across its segments. */
export function clipRow(r: Row, width: number): Row {
  const out: Row = [];
  let room = width;
  const total = r.reduce((n, s) => n + columns(s.text), 0);
  if (total <= width) return r;
  for (const segment of r) {
    if (room <= 0) break;
    const length = columns(segment.text);
    if (length < room) {
      out.push(segment);
      room -= length;
    } else {
      out.push({ ...segment, text: clip(segment.text + ' ', room) });
      room = 0;
    }
  }
  return out;
}

/** The body height left once header and footer are placed (never below 1). */
export function bodyHeight(size: Size, headerRows: number, footerRows: number): number {
  return Math.max(1, usableRows(size) - headerRows - footerRows);
}

/** Rows visible in the body window. */
export function visibleBody(frame: Frame): Row[] {
  const rows = frame.body.slice(frame.top, frame.top + frame.height);
  const below = frame.body.length - (frame.top + frame.height);
  if (!frame.moreBelowHint || below <= 0 || frame.height < 3) return rows;
  // The hidden last row counts too: it comes into view with the next ↓.
  return [...rows.slice(0, -1), row(`  ↓ ${below + 1} more lines (↓ / PgDn)`, 'dim')];
}
