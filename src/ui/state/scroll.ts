/**
 * Scroll positions of text panes. Pure. Positions are always clamped, so a key
 * pressed past the end does nothing and the next press the other way moves at once.
 */
export interface PaneSize {
  /** Rows of content. */
  total: number;
  /** Rows visible. */
  viewport: number;
}

export function maxTop(size: PaneSize): number {
  return Math.max(0, size.total - Math.max(1, size.viewport));
}

export function clampTop(top: number, size: PaneSize): number {
  return Math.max(0, Math.min(top, maxTop(size)));
}

export function scrollBy(top: number, delta: number, size: PaneSize): number {
  return clampTop(clampTop(top, size) + delta, size);
}

/** A pane that sticks to its end while new rows arrive, until the user scrolls up. */
export interface FollowScroll {
  top: number;
  follow: boolean;
}

/** Scrolling up leaves follow mode; reaching the bottom again resumes it. */
export function scrollFollowBy(scroll: FollowScroll, delta: number, size: PaneSize): FollowScroll {
  const from = scroll.follow ? maxTop(size) : clampTop(scroll.top, size);
  const top = clampTop(from + delta, size);
  return { top, follow: top >= maxTop(size) };
}

/** One page: the viewport less one row, so a line of context stays visible. */
export function pageSize(viewport: number): number {
  return Math.max(1, viewport - 1);
}
