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
  | 'r'
  | 'c'
  | 'k';

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

/**
 * The keys of one input event. Ink splits escape sequences but hands over a run of plain
 * characters as one event (a paste, or keys typed before the terminal was switched to raw
 * mode, which arrive together once it is): each character of such a run is a key of its own.
 */
export function toUiKeys(input: string, key: InkKey): UiKey[] {
  const single = toUiKey(input, key);
  if (single !== null) return [single];
  if (input.length < 2) return [];
  return [...input].map(characterKey).filter((k): k is UiKey => k !== null);
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
  return characterKey(input);
}

/**
 * A plain character. A line feed is Enter too: before raw mode the terminal's line
 * discipline turns the carriage return of Enter into one.
 */
function characterKey(input: string): UiKey | null {
  switch (input) {
    case '\r':
    case '\n':
      return 'enter';
    case '\t':
      return 'tab';
    case 'q':
    case 'Q':
      return 'q';
    case 'r':
    case 'R':
      return 'r';
    case 'c':
    case 'C':
      return 'c';
    case 'k':
    case 'K':
      return 'k';
    case '\x03':
      return 'ctrl-c';
    default:
      return null;
  }
}
