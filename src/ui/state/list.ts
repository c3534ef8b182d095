/** A selected row in a list that may be longer than the screen. Pure. */
export interface ListState {
  selected: number;
  /** First row shown. */
  top: number;
}

export const emptyList: ListState = { selected: 0, top: 0 };

/** Moves the selection by `delta`, wrapping at both ends, and keeps it in view. */
export function moveSelection(
  list: ListState,
  delta: number,
  count: number,
  viewport: number,
): ListState {
  if (count <= 0) return emptyList;
  const selected = (((list.selected + delta) % count) + count) % count;
  return { selected, top: keepInView(list.top, selected, count, viewport) };
}

/** The first row to show so that `selected` is visible and no space is wasted after the end. */
export function keepInView(top: number, selected: number, count: number, viewport: number): number {
  const size = Math.max(1, viewport);
  let next = top;
  if (selected < next) next = selected;
  if (selected >= next + size) next = selected - size + 1;
  return Math.max(0, Math.min(next, Math.max(0, count - size)));
}
