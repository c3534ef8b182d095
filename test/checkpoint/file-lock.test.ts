import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import { setImmediate } from 'node:timers/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FILE_LOCK_STALE_MS, withFileLock } from '../../src/checkpoint/file-lock.js';
import { processStartTime } from '../../src/process/proc.js';

// The lock around a read-modify-write several processes of the user share (the usage governor's
// account file). Between real processes: test/system/run/account-file-writers.test.ts.

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'ralph-lock-'));
});
afterEach(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** A pid no process has (above Linux's largest pid_max). */
const NO_PROCESS = 4_194_305;

describe('withFileLock', () => {
  it('holds the lock while the update runs and removes it after, also when the update throws', async () => {
    const lock = path.join(dir, 'sub', 'a.json.lock');
    const seen = await withFileLock(lock, async () => readdir(path.dirname(lock)));
    expect(seen).toEqual(['a.json.lock']);
    expect(await readdir(path.dirname(lock))).toEqual([]);
    await expect(
      withFileLock(lock, () => Promise.reject(new Error('update failed'))),
    ).rejects.toThrow('update failed');
    expect(await readdir(path.dirname(lock))).toEqual([]);
  });

  it('updates of one process run one at a time, in order', async () => {
    const lock = path.join(dir, 'b.lock');
    const order: string[] = [];
    const update = (name: string) =>
      withFileLock(lock, async () => {
        order.push(`${name} in`);
        await setImmediate();
        order.push(`${name} out`);
      });
    await Promise.all([update('one'), update('two'), update('three')]);
    expect(order).toHaveLength(6);
    for (let i = 0; i < 6; i += 2) {
      expect(order[i]?.replace(' in', '')).toBe(order[i + 1]?.replace(' out', ''));
    }
  });

  it('a lock whose holder died, or that names no holder, is taken over', async () => {
    const lock = path.join(dir, 'c.lock');
    for (const text of [
      JSON.stringify({ pid: NO_PROCESS, host: hostname(), startTime: null }),
      'not a holder',
    ]) {
      await writeFile(lock, text);
      expect(await withFileLock(lock, () => Promise.resolve('ran'))).toBe('ran');
      expect(await readdir(dir)).toEqual([]);
    }
  });

  it('a live holder is waited for: the update runs once the holder lets go', async () => {
    const lock = path.join(dir, 'd.lock');
    const me = { pid: process.pid, host: hostname(), startTime: processStartTime(process.pid) };
    await writeFile(lock, JSON.stringify(me));
    let ran = false;
    const waiting = withFileLock(lock, () => {
      ran = true;
      return Promise.resolve();
    });
    await setImmediate();
    expect(ran).toBe(false);
    await rm(lock);
    await waiting;
    expect(ran).toBe(true);
  });

  it('a lock older than a hold can last is taken over, even from a live holder (stopped, or on another machine)', async () => {
    const lock = path.join(dir, 'e.lock');
    for (const holder of [
      { pid: process.pid, host: hostname(), startTime: processStartTime(process.pid) },
      { pid: 1, host: 'another-machine', startTime: null },
    ]) {
      await writeFile(lock, JSON.stringify(holder));
      const old = new Date(Date.now() - FILE_LOCK_STALE_MS - 1_000);
      await utimes(lock, old, old);
      expect(await withFileLock(lock, () => Promise.resolve('ran'))).toBe('ran');
      expect(await readdir(dir)).toEqual([]);
    }
  });
});
