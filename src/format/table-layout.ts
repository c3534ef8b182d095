/**
 * Lays out rows as left-aligned columns separated by two spaces, each cell measured by
 * `measure` (the terminal columns it takes: cells may be coloured, in CJK or with emoji).
 * format/table.ts measures with string-width; `list` with format/plain-width.ts when its
 * cells allow it.
 */
export function layoutTable(
  rows: readonly (readonly string[])[],
  measure: (cell: string) => number,
): string[] {
  const widths: number[] = [];
  for (const row of rows) {
    row.forEach((cell, i) => {
      widths[i] = Math.max(widths[i] ?? 0, measure(cell));
    });
  }
  return rows.map((row) =>
    row
      .map((cell, i) =>
        i === row.length - 1 ? cell : cell + ' '.repeat((widths[i] ?? 0) - measure(cell)),
      )
      .join('  ')
      .trimEnd(),
  );
}
