/** Numbers with their units, as the screens and the plain output both show them. Pure. */

/** "1 attempt", "3 attempts". */
export function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

export function progressBar(done: number, total: number, width = 10): string {
  const filled = total === 0 ? 0 : Math.round((done / total) * width);
  return `${'█'.repeat(filled)}${'░'.repeat(width - filled)}`;
}

/** "just now", "5m ago", "3h ago", "2d ago", else the date. */
export function relativeTime(iso: string, now: Date): string {
  const then = new Date(iso);
  const seconds = Math.round((now.getTime() - then.getTime()) / 1000);
  if (Number.isNaN(seconds)) return '?';
  if (seconds < 60) return 'just now';
  if (seconds < 3600) return `${Math.floor(seconds / 60)}m ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)}h ago`;
  if (seconds < 30 * 86_400) return `${Math.floor(seconds / 86_400)}d ago`;
  return then.toISOString().slice(0, 10);
}

export function formatDuration(ms: number): string {
  const total = Math.max(0, Math.round(ms / 1000));
  const h = Math.floor(total / 3600);
  const m = Math.floor((total % 3600) / 60);
  const s = total % 60;
  if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
  if (m > 0) return `${m}m${String(s).padStart(2, '0')}s`;
  return `${s}s`;
}

/**
 * Decimals a cost is shown with: cents from $1 up, else four places, so that the few cents an
 * attempt costs do not all show as $0.01 (and a column of them adds up, see `costColumn`).
 */
export function costDecimals(usd: number): number {
  return usd >= 1 ? 2 : 4;
}

/**
 * "$0.0125", "$0.05", "$3.40"; "—" when the cost is unknown (an agent that reports none, like
 * Codex). Zeros past the cents are dropped: "$0.05", not "$0.0500".
 */
export function formatCost(usd: number | null, decimals = costDecimals(usd ?? 0)): string {
  if (usd === null) return '—';
  return `$${usd.toFixed(decimals).replace(/(\.\d\d\d*?)0+$/, '$1')}`;
}

/**
 * An amount the user gave (a budget), with the precision it was given: "$0.006", "$2.50",
 * "$3.00" — never rounded to the cent, which could show a budget of $0.006 as "$0.01".
 */
export function formatAmount(usd: number | null): string {
  if (usd === null) return '—';
  const [whole = '0', fraction = ''] = usd.toFixed(6).replace(/0+$/, '').split('.');
  return `$${whole}.${fraction.padEnd(2, '0')}`;
}

/**
 * A column of costs and its total, drawn from the same rounded numbers so that the total is the
 * sum of the rows as shown: every row is rounded to the total's precision, and the total is the
 * sum of the rounded rows. Unknown costs show "—" and add nothing.
 */
export function costColumn(costs: readonly (number | null)[]): { cells: string[]; total: string } {
  const known = costs.filter((c): c is number => c !== null);
  const decimals = costDecimals(known.reduce((sum, c) => sum + c, 0));
  const scale = 10 ** decimals;
  const units = costs.map((c) => (c === null ? null : Math.round(c * scale)));
  const cells = units.map((u) => (u === null ? '—' : formatCost(u / scale, decimals)));
  if (known.length === 0) return { cells, total: '—' };
  const sum = units.reduce<number>((acc, u) => acc + (u ?? 0), 0);
  return { cells, total: formatCost(sum / scale, decimals) };
}

/**
 * "7 turns" as Claude counts them (one per model round trip); Codex counts a turn per `codex
 * exec`, a different thing, so its count is labelled as such rather than passed off as the same.
 */
export function formatTurns(turns: number, agent: string): string {
  return plural(turns, agent === 'codex' ? 'Codex turn' : 'turn');
}

/** "850 tokens", "12.3k tokens", "1.2M tokens". */
export function formatTokens(n: number): string {
  if (n < 1000) return `${n} tokens`;
  if (n < 1_000_000) return `${(n / 1000).toFixed(1)}k tokens`;
  return `${(n / 1_000_000).toFixed(1)}M tokens`;
}
