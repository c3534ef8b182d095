/**
 * "Did you mean …?" for a mistyped name (`lst`, `add-thng`): the closest candidate by edit
 * distance, when it is close enough to be the name the user meant. Pure.
 */
export function closestName(word: string, candidates: readonly string[]): string | null {
  let best: { name: string; distance: number } | null = null;
  for (const name of candidates) {
    if (name === word) continue;
    const distance = editDistance(word.toLowerCase(), name.toLowerCase());
    // One edit in three characters at most (and always one), so `x` never suggests `list`.
    const allowed = Math.max(1, Math.floor(Math.max(word.length, name.length) / 3));
    if (distance > allowed) continue;
    if (best === null || distance < best.distance) best = { name, distance };
  }
  return best?.name ?? null;
}

/** ` (did you mean x?)` or nothing, to follow the name in an "unknown …" message. */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const name = closestName(word, candidates);
  return name === null ? '' : ` (did you mean ${name}?)`;
}

/**
 * Edits (insert, delete, substitute, swap two neighbours) that turn `a` into `b`: the optimal
 * string alignment distance, so a swapped pair (`shwo`) counts as one typo.
 */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  const at = (i: number, j: number): number => d[i]?.[j] ?? Number.MAX_SAFE_INTEGER;
  for (let i = 1; i < rows; i += 1) {
    for (let j = 1; j < cols; j += 1) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, at(i - 2, j - 2) + 1);
      }
      const row = d[i];
      if (row) row[j] = value;
    }
  }
  return at(a.length, b.length);
}
