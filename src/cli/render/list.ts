import type { ChangeSummary } from '../../core/change.js';
import type { Style } from '../../format/style.js';
import { layoutTable } from '../../format/table-layout.js';
import { progressBar, relativeTime } from '../../format/units.js';
import type { RunMark } from '../../core/run-mark.js';

/** The cells of `ralphtool list`'s table, its header first; null when there is nothing to list. */
export function changeListCells(
  changes: readonly ChangeSummary[],
  style: Style,
  now: Date,
  /** The changes whose recorded run waits for the user, with how (core/run-mark.ts). */
  marks: Readonly<Record<string, RunMark>> = {},
): string[][] | null {
  if (changes.length === 0) return null;
  const header = ['CHANGE', 'STORIES', 'TASKS', 'PROGRESS', 'MODIFIED'].map(style.bold);
  const rows = changes.map((c) => {
    const complete = c.tasks.total > 0 && c.tasks.done === c.tasks.total;
    const bar = progressBar(c.tasks.done, c.tasks.total);
    const mark = marks[c.name];
    return [
      mark === undefined ? c.name : `${c.name} ${style.dim(markWords(mark, c.name))}`,
      `${c.stories.done}/${c.stories.total}`,
      `${c.tasks.done}/${c.tasks.total}`,
      complete ? style.green(bar) : bar,
      style.dim(relativeTime(c.lastModified, now)),
    ];
  });
  return [header, ...rows];
}

/**
 * The table of `ralphtool list` (`changeListCells`, each measured by `measure`), or a hint when
 * there is nothing to list.
 */
export function renderChangeList(
  cells: readonly (readonly string[])[] | null,
  measure: (cell: string) => number,
): string {
  if (cells === null) {
    return 'No changes in openspec/changes/. Create one with `openspec new change <name>`.\n';
  }
  return `${layoutTable(cells, measure).join('\n')}\n`;
}

/** What a recorded run's mark tells in the list; a kept run says where its work is. */
function markWords(mark: RunMark, change: string): string {
  return mark === 'kept' ? `[kept on ralph/${change}, not merged]` : `[${mark.replace('-', ' ')}]`;
}
