import { describe, expect, it } from 'vitest';
import {
  afterAccepted,
  afterBaseline,
  blocks,
  toleratedCommands,
  toleratedNotes,
  withTolerance,
  type RatchetEntry,
} from '../../src/core/verify-ratchet.js';

const TEST = 'npm test';
const LINT = 'npm run lint';

describe('the verify ratchet', () => {
  it('a command failing at the baseline is tolerated; one passing there blocks', () => {
    const ratchet = afterBaseline(undefined, [
      { command: TEST, passed: false },
      { command: LINT, passed: true },
    ]);
    expect(ratchet).toEqual([
      { command: TEST, baselinePassed: false, passedOnce: false },
      { command: LINT, baselinePassed: true, passedOnce: true },
    ]);
    expect(blocks(ratchet, TEST, false)).toBe(false);
    expect(blocks(ratchet, LINT, false)).toBe(true);
    expect(
      withTolerance(
        [
          { command: TEST, passed: false },
          { command: LINT, passed: false },
        ],
        (c) => blocks(ratchet, c, false),
      ),
    ).toEqual([
      { command: TEST, passed: false, tolerated: true },
      { command: LINT, passed: false },
    ]);
    expect(toleratedCommands(ratchet, [TEST, LINT], false)).toEqual([TEST]);
  });

  it('once it passes on an accepted attempt, a tolerated command blocks (a later failure is a regression)', () => {
    const before = afterBaseline(undefined, [{ command: TEST, passed: false }]);
    const stillFailing = afterAccepted(before, [{ command: TEST, passed: false, tolerated: true }]);
    expect(blocks(stillFailing, TEST, false)).toBe(false);
    const fixed = afterAccepted(stillFailing, [{ command: TEST, passed: true }]);
    expect(fixed).toEqual([{ command: TEST, baselinePassed: false, passedOnce: true }]);
    expect(blocks(fixed, TEST, false)).toBe(true);
    expect(toleratedCommands(fixed, [TEST], false)).toEqual([]);
  });

  it('a later baseline (a resume) keeps what passed once, even when the command fails there now', () => {
    const recorded: RatchetEntry[] = [
      { command: TEST, baselinePassed: false, passedOnce: true },
      { command: 'old check', baselinePassed: true, passedOnce: true },
    ];
    const resumed = afterBaseline(recorded, [
      { command: TEST, passed: false },
      { command: LINT, passed: false },
    ]);
    expect(resumed).toEqual([
      { command: TEST, baselinePassed: false, passedOnce: true },
      { command: 'old check', baselinePassed: true, passedOnce: true },
      { command: LINT, baselinePassed: false, passedOnce: false },
    ]);
    expect(blocks(resumed, TEST, false)).toBe(true);
    expect(blocks(resumed, LINT, false)).toBe(false);
  });

  it('--verify-strict, no baseline, or a command the baseline did not run: every failure blocks', () => {
    const ratchet = afterBaseline(undefined, [{ command: TEST, passed: false }]);
    expect(blocks(ratchet, TEST, true)).toBe(true);
    expect(blocks(null, TEST, false)).toBe(true);
    expect(blocks(ratchet, LINT, false)).toBe(true);
    expect(toleratedCommands(ratchet, [TEST], true)).toEqual([]);
    expect(toleratedCommands(null, [TEST], false)).toEqual([]);
    expect(afterAccepted(null, [{ command: TEST, passed: true }])).toBeNull();
  });

  it('says a tolerated failure briefly, and nothing for the others', () => {
    expect(
      toleratedNotes([
        { command: TEST, passed: false, tolerated: true },
        { command: LINT, passed: false },
        { command: 'tsc', passed: true },
      ]),
    ).toEqual(['npm test still fails as before the run: not blocking']);
    expect(toleratedNotes(undefined)).toEqual([]);
  });
});
