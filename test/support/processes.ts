import { readdirSync, readFileSync } from 'node:fs';
import { expect } from 'vitest';

/**
 * State and process group of a process, from /proc/<pid>/stat; null when there is none.
 * Read here, not through src/process/proc.ts: the tests' way of seeing processes must not
 * share a bug with the code whose kills they check.
 */
export function procStat(pid: number): { state: string; pgrp: number } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '?', pgrp: Number(fields[2]) };
}

/** Gone: no /proc entry, or a zombie waiting for a reaper (containers often lack an init). */
export function processGone(pid: number): boolean {
  const info = procStat(pid);
  return info === null || info.state === 'Z' || info.state === 'X';
}

export function processAlive(pid: number): boolean {
  return !processGone(pid);
}

/** Every live (non-zombie) process whose process group is `pgid`. */
export function groupMembers(pgid: number): number[] {
  let entries: string[];
  try {
    entries = readdirSync('/proc').filter((name) => /^\d+$/.test(name));
  } catch {
    return [];
  }
  return entries.map(Number).filter((pid) => procStat(pid)?.pgrp === pgid && !processGone(pid));
}

/** Kills a process group the test left behind (by its id), ignoring one already gone. */
export function killGroup(pgid: number | null | undefined): void {
  if (!pgid || pgid <= 1) return;
  try {
    process.kill(-pgid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until `check` holds; false when it never did within `timeoutMs`. */
export async function eventually(check: () => boolean, timeoutMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(50);
  }
  return true;
}

/** Waits up to 5 s for a process to be gone, then asserts it is. */
export async function expectGone(pid: number): Promise<void> {
  expect(pid).toBeGreaterThan(0);
  for (let i = 0; i < 50 && processAlive(pid); i += 1) {
    await new Promise((r) => setTimeout(r, 100));
  }
  expect(processAlive(pid)).toBe(false);
}

/**
 * The agent's process group once the run has recorded it. The agent can speak (the event a
 * test waits for) before ralphtool's state write of its group lands; a kill -9 in between leaves
 * no group to find. Throws when it is not recorded within `timeoutMs`.
 */
export async function recordedAgentGroup(
  state: () => Record<string, unknown>,
  timeoutMs = 20_000,
): Promise<number> {
  let pgid: unknown = null;
  const recorded = await eventually(() => {
    pgid = state().agentPgid;
    return typeof pgid === 'number';
  }, timeoutMs);
  if (!recorded || typeof pgid !== 'number') throw new Error('the agent group was never recorded');
  return pgid;
}
