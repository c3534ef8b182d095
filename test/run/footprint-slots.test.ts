import { describe, expect, it } from 'vitest';
import type { Footprint } from '../../src/core/footprint.js';
import { FootprintSlots } from '../../src/run/many/footprint-slots.js';

describe('FootprintSlots: the places of several runs, given by footprint', () => {
  const footprints = new Map<string, Footprint>([
    ['alpha', new Set(['src/shared.ts'])],
    ['beta', new Set(['src/shared.ts', 'src/beta.ts'])],
    ['gamma', new Set(['src/gamma.ts'])],
  ]);

  it('FootprintSlots: every change waits from the start, so the first choices see them all', async () => {
    const started: string[] = [];
    const told: string[] = [];
    const slots = new FootprintSlots(2, ['alpha', 'beta', 'gamma'], footprints, (next) =>
      told.push(`${next.change}:${next.passed.map((p) => p.change).join(',')}`),
    );
    const releases = new Map<string, () => void>();
    const all = ['alpha', 'beta', 'gamma'].map(async (change) => {
      releases.set(change, await slots.acquire(change));
      started.push(change);
    });
    await new Promise((r) => setImmediate(r));
    expect(started).toEqual(['alpha', 'gamma']);
    expect(told).toEqual(['gamma:beta']);
    releases.get('alpha')!();
    releases.get('alpha')!(); // a second call gives nothing back twice
    await Promise.all(all);
    expect(started).toEqual(['alpha', 'gamma', 'beta']);
  });

  it('without footprints, the order given', async () => {
    const started: string[] = [];
    const slots = new FootprintSlots(1, ['a', 'b', 'c'], new Map(), () => undefined);
    const all = ['c', 'b', 'a'].map(async (change) => {
      const release = await slots.acquire(change);
      started.push(change);
      release();
    });
    await Promise.all(all);
    expect(started).toEqual(['a', 'b', 'c']);
  });
});
