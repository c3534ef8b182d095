import { columns } from './text.js';

/**
 * Lays out rows as left-aligned columns separated by two spaces. Cells may be coloured;
 * widths are terminal columns, so a cell in CJK or with emoji keeps its column straight.
 */
export function table(rows: readonly (readonly string[])[]): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, columns(cell));
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) =>
        i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - columns(cell)),
      )
      .join('  ')
      .trimEnd(),
  );
}
