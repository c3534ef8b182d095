/**
 * A scroll position tied to a transcript line rather than a screen row, so a view
 * the user scrolled up stays on the same text while old lines are dropped from
 * the front and while wrapping changes with the width. Pure.
 */
export interface LineAnchor {
  /** Absolute line number (counting dropped lines). */
  line: number;
  /** Rows below the start of that line; negative for rows above it (the marker). */
  row: number;
}

export interface RowMap {
  /** Absolute number of the first line kept. */
  firstLine: number;
  /** Row at which each kept line starts. */
  starts: number[];
  total: number;
}

export function topFromAnchor(anchor: LineAnchor, map: RowMap): number {
  const index = anchor.line - map.firstLine;
  if (index < 0) return 0;
  const start = map.starts[index];
  if (start === undefined) return map.total;
  const end = map.starts[index + 1] ?? map.total;
  return Math.max(0, Math.min(start + anchor.row, end - 1));
}

export function anchorFromTop(top: number, map: RowMap): LineAnchor {
  const { starts } = map;
  if (starts.length === 0 || top < (starts[0] ?? 0)) {
    return { line: map.firstLine, row: top - (starts[0] ?? 0) };
  }
  let low = 0;
  let high = starts.length - 1;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if ((starts[mid] ?? 0) <= top) low = mid;
    else high = mid - 1;
  }
  return { line: map.firstLine + low, row: top - (starts[low] ?? 0) };
}
