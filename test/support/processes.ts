import { readFileSync } from 'node:fs';
import { expect } from 'vitest';

/** Alive and not a zombie waiting for a reaper (containers often lack an init that reaps). */
export function processAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return !/^\d+ \(.*\) Z/.test(stat);
  } catch {
    return false;
  }
}

/** Waits up to 5 s for a process to be gone, then asserts it is. */
export async function expectGone(pid: number): Promise<void> {
  expect(pid).toBeGreaterThan(0);
  for (let i = 0; i < 50 && processAlive(pid); i += 1) {
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(processAlive(pid)).toBe(false);
}
