import { describe, expect, it } from 'vitest';
import { findMergeOrder, type ApplyStep } from '../../src/core/merge-order.js';

/**
 * A model of the cumulative merge: the state is the set of branches merged so far, and
 * `blocked(item, state)` says the merge of `item` into it conflicts. Counts the merges asked.
 */
function model(blocked: (item: string, merged: readonly string[]) => boolean) {
  const calls: string[][] = [];
  const apply: ApplyStep<readonly string[]> = (state, item) => {
    calls.push([...state, item]);
    return Promise.resolve(blocked(item, state) ? null : [...state, item]);
  };
  return { apply, calls };
}

describe('findMergeOrder: an order in which branches apply one after the other', () => {
  it('keeps the given order when every step applies (one merge per branch)', async () => {
    const { apply, calls } = model(() => false);
    const order = await findMergeOrder({ items: ['a', 'b', 'c'], start: [], apply });
    expect(order).toEqual(['a', 'b', 'c']);
    expect(calls).toHaveLength(3);
  });

  it('finds another order when the given one fails late', async () => {
    // b applies only once c is in (c renames what b edits, say).
    const { apply } = model((item, merged) => item === 'b' && !merged.includes('c'));
    expect(await findMergeOrder({ items: ['a', 'b', 'c'], start: [], apply })).toEqual([
      'a',
      'c',
      'b',
    ]);
  });

  it('finds an order that must start with a branch given last', async () => {
    const { apply } = model((item, merged) => item !== 'c' && !merged.includes('c'));
    const order = await findMergeOrder({ items: ['a', 'b', 'c'], start: [], apply });
    expect(order?.[0]).toBe('c');
    expect([...(order ?? [])].sort()).toEqual(['a', 'b', 'c']);
  });

  it('gives null when no order applies, without trying a failed set twice', async () => {
    // a and b never go together; c goes with anything.
    const { apply, calls } = model(
      (item, merged) =>
        (item === 'a' && merged.includes('b')) || (item === 'b' && merged.includes('a')),
    );
    expect(await findMergeOrder({ items: ['a', 'b', 'c'], start: [], apply })).toBeNull();
    // Every (set, next) pair at most once: no set of merged branches is explored twice.
    const keys = calls.map((c) => `${[...c.slice(0, -1)].sort().join(',')}+${c.at(-1) ?? ''}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it('gives null when the first branch already conflicts with the start, whatever comes after', async () => {
    const { apply } = model((item) => item === 'x');
    expect(await findMergeOrder({ items: ['x', 'y'], start: [], apply })).toBeNull();
  });

  it('gives an empty order for no branches and a single branch alone', async () => {
    const { apply } = model(() => false);
    expect(await findMergeOrder({ items: [], start: [], apply })).toEqual([]);
    expect(await findMergeOrder({ items: ['only'], start: [], apply })).toEqual(['only']);
  });

  it('stops at the step budget with null', async () => {
    const { apply, calls } = model(() => true);
    const items = ['a', 'b', 'c', 'd', 'e', 'f'];
    expect(await findMergeOrder({ items, start: [], apply, maxSteps: 4 })).toBeNull();
    expect(calls).toHaveLength(4);
  });

  it('passes each step the state the previous steps made', async () => {
    const seen: string[] = [];
    const apply: ApplyStep<string> = (state, item) => {
      seen.push(state);
      return Promise.resolve(`${state}+${item}`);
    };
    expect(await findMergeOrder({ items: ['a', 'b'], start: 'S', apply })).toEqual(['a', 'b']);
    expect(seen).toEqual(['S', 'S+a']);
  });
});
