import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { acquireLock } from '../../src/run/lock.js';

let dir: string | undefined;
afterEach(() => {
  if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

describe('acquireLock', () => {
  it('of many takers at the same moment exactly one wins: a lock is never seen without its holder', async () => {
    dir = mkdtempSync(join(tmpdir(), 'ralphtool-lock-'));
    const path = join(dir, 'lock');
    for (let round = 0; round < 20; round += 1) {
      const taken = await Promise.allSettled(
        Array.from({ length: 8 }, () => acquireLock(path, 'add-auth', () => 'held')),
      );
      const won = taken.filter((t) => t.status === 'fulfilled');
      expect(won).toHaveLength(1);
      for (const lost of taken.filter((t) => t.status === 'rejected')) {
        expect(lost.reason).toBeInstanceOf(UsageError);
      }
      // The lock holds its holder; no half-written file is left beside it.
      expect(JSON.parse(readFileSync(path, 'utf8'))).toMatchObject({ pid: process.pid });
      expect(readdirSync(dir)).toEqual(['lock']);
      await (
        won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof acquireLock>>>
      ).value.release();
    }
  });
});
