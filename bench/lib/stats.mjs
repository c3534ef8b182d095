// Small helpers for the benchmark's figures and its plain-text tables.

export function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return NaN;
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

export function ms(value) {
  return Number.isFinite(value) ? `${value.toFixed(1)} ms` : 'n/a';
}

/** A left-aligned first column, right-aligned others, separated by two spaces. */
export function table(header, rows) {
  const all = [header, ...rows];
  const widths = header.map((_, i) => Math.max(...all.map((row) => String(row[i]).length)));
  const line = (row) =>
    row
      .map((cell, i) =>
        i === 0 ? String(cell).padEnd(widths[i]) : String(cell).padStart(widths[i]),
      )
      .join('  ');
  return [line(header), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n');
}

/** `median (min–max)` of milliseconds, e.g. `94.1 ms (88.0–120.3)`. */
export function spread(values) {
  if (values.length === 0) return 'n/a';
  const min = Math.min(...values);
  const max = Math.max(...values);
  return `${ms(median(values))} (${min.toFixed(1)}–${max.toFixed(1)})`;
}

/** `a / b` as `4.8×`. */
export function ratio(a, b) {
  return Number.isFinite(a / b) ? `${(a / b).toFixed(2)}×` : 'n/a';
}
