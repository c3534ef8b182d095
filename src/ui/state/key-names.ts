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
  | 'k'
  // The change list's marks (Space, a mark all, s start the marked ones) and the dashboard's
  // "apply to all" (upper-case C / K; elsewhere they mean c / k, see `lowerKey`).
  | 'space'
  | 'a'
  | 's'
  | 'C'
  | 'K';

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
      return 'c';
    case 'C':
      return 'C';
    case 'k':
      return 'k';
    case 'K':
      return 'K';
    case ' ':
      return 'space';
    case 'a':
    case 'A':
      return 'a';
    case 's':
    case 'S':
      return 's';
    case '\x03':
      return 'ctrl-c';
    default:
      return null;
  }
}

/** C and K are c and k everywhere but on the dashboard, where they apply a choice to all. */
export function lowerKey(key: UiKey): UiKey {
  if (key === 'C') return 'c';
  if (key === 'K') return 'k';
  return key;
}
