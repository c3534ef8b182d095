import { Text } from 'ink';
import { MIN_COLUMNS, MIN_ROWS } from '../view/frame.js';

/** Shown instead of any screen when the terminal is below the size the layout needs. */
export function TooSmall() {
  return <Text wrap="truncate-end">{`terminal too small (need ${MIN_COLUMNS}×${MIN_ROWS})`}</Text>;
}
