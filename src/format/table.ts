import { layoutTable } from './table-layout.js';
import { columns } from './text.js';

/**
 * Lays out rows as left-aligned columns separated by two spaces. Cells may be coloured;
 * widths are terminal columns, so a cell in CJK or with emoji keeps its column straight.
 */
export function table(rows: readonly (readonly string[])[]): string[] {
  return layoutTable(rows, columns);
}
