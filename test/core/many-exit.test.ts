import { describe, expect, it } from 'vitest';
import { mostSeriousExit } from '../../src/core/many-exit.js';

describe('the exit code of several runs', () => {
  it.each([
    [[], 0],
    [[0, 0, 0], 0],
    [[0, 3, 0], 3],
    [[5, 4, 3], 3],
    [[3, 2], 2],
    [[2, 1], 1],
    [[1, 130, 0], 130],
    [[5, 0], 5],
    [[0, 42], 1],
    [[42, 2], 1],
  ])('%j → %i', (codes, expected) => {
    expect(mostSeriousExit(codes)).toBe(expected);
  });
});
