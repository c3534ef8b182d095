import { describe, expect, it } from 'vitest';
import { costColumn, formatAmount, formatCost, formatTurns } from '../../src/format/units.js';

describe('costs', () => {
  it('shows cents from $1 up and four places below, without zeros past the cents', () => {
    expect(formatCost(0.0125)).toBe('$0.0125');
    expect(formatCost(0.05)).toBe('$0.05');
    expect(formatCost(0)).toBe('$0.00');
    expect(formatCost(3.4)).toBe('$3.40');
    expect(formatCost(123.456)).toBe('$123.46');
    expect(formatCost(null)).toBe('—');
  });

  it('a column adds up: the total is the sum of the rows as shown', () => {
    const third = 1 / 3 - 0.0001;
    const column = costColumn([third, third, third]);
    expect(column.cells).toEqual(['$0.3332', '$0.3332', '$0.3332']);
    expect(column.total).toBe('$0.9996');
    const mixed = costColumn([0.004, 1.005, 0.996, null]);
    const shown = mixed.cells.slice(0, 3).map((c) => Math.round(Number(c.slice(1)) * 100));
    expect(Math.round(Number(mixed.total.slice(1)) * 100)).toBe(shown.reduce((a, b) => a + b));
    expect(mixed.cells[3]).toBe('—');
  });

  it('a column of unknown costs has an unknown total', () => {
    expect(costColumn([null, null])).toEqual({ cells: ['—', '—'], total: '—' });
  });
});

describe('turns', () => {
  it("labels Codex's turns for what they are", () => {
    expect(formatTurns(7, 'claude')).toBe('7 turns');
    expect(formatTurns(1, 'codex')).toBe('1 Codex turn');
  });
});

describe('formatAmount', () => {
  it('shows a budget with the precision it was given, at least to the cent', () => {
    expect(formatAmount(0.006)).toBe('$0.006');
    expect(formatAmount(0.0125)).toBe('$0.0125');
    expect(formatAmount(2.5)).toBe('$2.50');
    expect(formatAmount(3)).toBe('$3.00');
    expect(formatAmount(0.1 + 0.2)).toBe('$0.30');
    expect(formatAmount(null)).toBe('—');
  });
});
