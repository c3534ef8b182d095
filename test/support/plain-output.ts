import { ProgressPrinter } from '../../src/cli/render/progress.js';
import type { RunEvent } from '../../src/core/events.js';
import { plainStyle } from '../../src/format/style.js';

/** What `ralphtool run` prints without --json for these events (the real ProgressPrinter). */
export function printed(events: readonly RunEvent[]): string {
  let out = '';
  const printer = new ProgressPrinter((text) => {
    out += text;
  }, plainStyle);
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
