/** The keys the UI understands, whatever the terminal sent. */
export type UiKey =
  | 'up'
  | 'down'
  | 'left'
  | 'right'
  | 'pageup'
  | 'pagedown'
  | 'home'
  | 'end'
  | 'tab'
  | 'shift-tab'
  | 'enter'
  | 'escape'
  | 'q'
  | 'ctrl-c'
  | 'r';

/** The subset of Ink's key flags this needs. */
export interface InkKey {
  upArrow: boolean;
  downArrow: boolean;
  leftArrow: boolean;
  rightArrow: boolean;
  pageUp: boolean;
  pageDown: boolean;
  home: boolean;
  end: boolean;
  tab: boolean;
  shift: boolean;
  return: boolean;
  escape: boolean;
  ctrl: boolean;
}

export function toUiKey(input: string, key: InkKey): UiKey | null {
  if (key.ctrl && input === 'c') return 'ctrl-c';
  if (key.upArrow) return 'up';
  if (key.downArrow) return 'down';
  if (key.leftArrow) return 'left';
  if (key.rightArrow) return 'right';
  if (key.pageUp) return 'pageup';
  if (key.pageDown) return 'pagedown';
  if (key.home) return 'home';
  if (key.end) return 'end';
  if (key.tab) return key.shift ? 'shift-tab' : 'tab';
  if (key.return) return 'enter';
  if (key.escape) return 'escape';
  if (input === 'q' || input === 'Q') return 'q';
  if (input === 'r' || input === 'R') return 'r';
  return null;
}
