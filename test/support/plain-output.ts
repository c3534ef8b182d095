import { ProgressPrinter } from '../../src/cli/render/progress.js';
import type { RunEvent } from '../../src/core/events.js';
import { plainStyle } from '../../src/format/style.js';

/**
 * What `ralphtool run` prints without --json for these events (the real ProgressPrinter): on a
 * terminal (lines under a story cut to its line), or with `terminal: false` into a file.
 */
export function printed(events: readonly RunEvent[], terminal = true): string {
  let out = '';
  const printer = new ProgressPrinter(
    (text) => {
      out += text;
    },
    plainStyle,
    undefined,
    { cut: terminal },
  );
  for (const event of events) printer.handle(event);
  return out;
}

/** The summary table's row for a story: its cells split on runs of spaces. */
export function row(stdout: string, storyId: string): string[] | undefined {
  return stdout
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/))
    .find((cells) => cells[0] === storyId && cells.length >= 4);
}
