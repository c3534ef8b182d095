import { describe, expect, it } from 'vitest';
import { TurnQueue } from '../../src/run/many/many-sync.js';
import { completionOrder } from '../../src/run/many/many.js';
import type { MergeReport } from '../../src/run/many/many-types.js';

/** Enters each name (in the order given) and records the order in which they were admitted. */
async function admitted(queue: TurnQueue, asking: string[], order: string[]): Promise<string[]> {
  const seen: string[] = [];
  const entered = asking.map(async (name) => {
    const leave = await queue.enter(name);
    seen.push(name);
    // Another caller is never admitted while one is inside.
    await Promise.resolve();
    expect(seen.at(-1)).toBe(name);
    leave();
  });
  queue.setOrder(order);
  await Promise.all(entered);
  return seen;
}

describe('TurnQueue', () => {
  it('admits nobody before the order is known, then each in its turn, whatever order they asked', async () => {
    const queue = new TurnQueue();
    let early = false;
    const waiting = queue.enter('a').then((leave) => {
      early = true;
      leave();
    });
    await new Promise((resolve) => setImmediate(resolve));
    expect(early).toBe(false);
    queue.setOrder(['a']);
    await waiting;
    expect(early).toBe(true);
    expect(await admitted(new TurnQueue(), ['c', 'a', 'b'], ['b', 'c', 'a'])).toEqual([
      'b',
      'c',
      'a',
    ]);
  });

  it('one that asks after the order was set and is not named goes last', async () => {
    const queue = new TurnQueue();
    queue.setOrder(['a']);
    let lateIn = false;
    const late = queue.enter('z').then((leave) => {
      lateIn = true;
      return leave;
    });
    const first = await queue.enter('a');
    await new Promise((resolve) => setImmediate(resolve));
    expect(lateIn).toBe(false);
    first();
    (await late)();
    expect(lateIn).toBe(true);
  });
});

function report(order: string[] | null): MergeReport {
  return { against: 'main', checked: ['a', 'b', 'c'], conflicts: [], order };
}

describe('completionOrder', () => {
  it.each([
    [
      'the merge check’s order when it found one',
      report(['c', 'a', 'b']),
      ['a', 'b', 'c'],
      ['c', 'a', 'b'],
    ],
    ['the order given when it found none', report(null), ['a', 'b', 'c'], ['a', 'b', 'c']],
    ['the order given when there was no check', null, ['b', 'a', 'c'], ['b', 'a', 'c']],
    [
      'runs that ask and were left out of the check, after',
      report(['c', 'a']),
      ['a', 'b', 'c'],
      ['c', 'a', 'b'],
    ],
  ] as const)('%s', (_name, merge, given, expected) => {
    expect(completionOrder(merge, given, ['a', 'b', 'c'])).toEqual(expected);
  });

  it('only the runs that ask for a choice', () => {
    expect(completionOrder(report(['c', 'a', 'b']), ['a', 'b', 'c'], ['b', 'a'])).toEqual([
      'a',
      'b',
    ]);
  });
});
