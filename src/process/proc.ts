import { readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { hostname } from 'node:os';
import { errnoCode } from '../core/error-details.js';

/**
 * What Linux's /proc tells about other processes, in one place. Every reader answers null
 * (or nothing) where there is no /proc, or when the process is gone or not ours to read,
 * so that callers fall back on what a pid alone can tell.
 */

/** The pid of every process in /proc; none where there is no /proc. */
export function listPids(): number[] {
  try {
    return readdirSync('/proc')
      .filter((entry) => /^\d+$/.test(entry))
      .map(Number);
  } catch {
    return [];
  }
}

/**
 * The pid the kernel gave last (the fifth field of /proc/loadavg), or null. Pids are given in
 * rising order until they wrap around at pid_max.
 */
export function lastPid(): number | null {
  try {
    const last = Number(readFileSync('/proc/loadavg', 'utf8').trim().split(/\s+/)[4]);
    return Number.isInteger(last) && last > 0 ? last : null;
  } catch {
    return null;
  }
}

/** Processes and threads created since boot (`processes` of /proc/stat), or null. */
export function forksSinceBoot(): number | null {
  try {
    const match = /^processes (\d+)$/m.exec(readFileSync('/proc/stat', 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}

let pidMaxRead: number | null | undefined;

/** The pid after which the kernel wraps around (/proc/sys/kernel/pid_max), or null. */
export function pidMax(): number | null {
  if (pidMaxRead !== undefined) return pidMaxRead;
  try {
    const max = Number(readFileSync('/proc/sys/kernel/pid_max', 'utf8').trim());
    pidMaxRead = Number.isInteger(max) && max > 0 ? max : null;
  } catch {
    pidMaxRead = null;
  }
  return pidMaxRead;
}

export interface ProcStat {
  /** R, S, D, Z (zombie: exited, not reaped yet), T… */
  state: string;
  /** The parent's pid (1 or a subreaper once the parent died). */
  ppid: number;
  /** The process group id. */
  pgrp: number;
  /** The session id (the pid of the session leader). */
  session: number;
  /** When the process started, in clock ticks since boot: a pid's identity beyond the pid. */
  startTime: string;
}

/** The fields of /proc/<pid>/stat that ralphtool uses; null when there is none. */
function readStat(pid: number): ProcStat | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // "pid (comm) state ppid pgrp … starttime …": comm may hold spaces and parentheses, so
  // fields are counted after its last ')'. There, field 3 (state) is index 0.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  const [state, ppid, pgrp, session] = fields;
  const startTime = fields[19]; // field 22
  if (state === undefined || pgrp === undefined || startTime === undefined) return null;
  return { state, ppid: Number(ppid), pgrp: Number(pgrp), session: Number(session), startTime };
}

/** The /proc/<pid>/stat fields of a live process, or null (gone, or no /proc). */
export function processStat(pid: number): Readonly<ProcStat> | null {
  return readStat(pid);
}

/** The process start time (clock ticks since boot), where /proc tells; null elsewhere. */
export function processStartTime(pid: number): string | null {
  return readStat(pid)?.startTime ?? null;
}

/** PF_EXITING in /proc/<pid>/stat's flags: the process is in the kernel's exit path. */
const PF_EXITING = 0x4;
/** SIGKILL's bit in /proc/<pid>/status's signal masks (signal n is bit n - 1). */
const SIGKILL_BIT = 1n << 8n;

/**
 * Whether a process, by its /proc/<pid>/stat and /proc/<pid>/status, is already on its way out:
 * exiting, or with a SIGKILL delivered it has not acted on yet (it never runs its own code
 * again). A sandbox's processes are killed by the kernel when their namespace's first process
 * ends, and on a loaded machine they can still be seen so for a moment after the sandbox's
 * outer process exited.
 */
export function dyingFrom(statText: string, statusText: string): boolean {
  const flags = Number(statText.slice(statText.lastIndexOf(')') + 2).split(' ')[6]);
  if (Number.isInteger(flags) && (flags & PF_EXITING) !== 0) return true;
  for (const match of statusText.matchAll(/^(?:SigPnd|ShdPnd):\s*([0-9a-f]+)$/gm)) {
    if ((BigInt(`0x${match[1] ?? '0'}`) & SIGKILL_BIT) !== 0n) return true;
  }
  return false;
}

/** Whether a process is on its way out (dyingFrom); false when it is gone or /proc cannot tell. */
export function isDying(pid: number): boolean {
  try {
    return dyingFrom(
      readFileSync(`/proc/${pid}/stat`, 'utf8'),
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
  } catch {
    return false;
  }
}

/** A zombie has exited but was not reaped yet (common in containers without an init). */
export function isZombie(pid: number): boolean {
  return readStat(pid)?.state === 'Z';
}

/** Pids whose process group is `pgid`, zombies included; none where /proc cannot tell. */
export function processesInGroup(pgid: number): number[] {
  return listPids().filter((pid) => readStat(pid)?.pgrp === pgid);
}

/** This boot's id: start times are comparable only within one boot. */
export function bootId(): string | null {
  try {
    return readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
  } catch {
    return null;
  }
}

/**
 * A process's identity beyond its pid, which the OS reuses: this boot and the process's
 * start time, as "boot:start". Null where /proc does not tell (then only the pid can be checked).
 */
export function processIdentity(pid: number): string | null {
  const start = processStartTime(pid);
  if (start === null) return null;
  return `${bootId() ?? ''}:${start}`;
}

/** The process's command name (/proc/<pid>/comm, at most 15 bytes), or null. */
export function processName(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/comm`, 'utf8').trim();
  } catch {
    return null;
  }
}

/** The process's working directory, or null when it is gone or not ours to read. */
export function processCwd(pid: number): string | null {
  try {
    return readlinkSync(`/proc/${pid}/cwd`);
  } catch {
    return null;
  }
}

/** The process's command line, words joined by spaces and cut to `max` characters, or null. */
export function processCommand(pid: number, max = 200): string | null {
  try {
    const words = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean);
    const line = words.join(' ');
    if (line === '') return processName(pid);
    return line.length > max ? `${line.slice(0, max - 1)}…` : line;
  } catch {
    return null;
  }
}

/** Whether the process was started with `name=value` in its environment (false when unreadable). */
export function environmentHas(pid: number, name: string, value: string): boolean {
  try {
    return readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').includes(`${name}=${value}`);
  } catch {
    return false;
  }
}

/** What the process's file descriptor `fd` is, as /proc shows it ("pipe:[1234]"…), or null. */
export function fdTarget(pid: number, fd: number | string): string | null {
  try {
    return readlinkSync(`/proc/${pid}/fd/${fd}`);
  } catch {
    return null;
  }
}

/** Whether any open file descriptor of the process is one of `targets` ("pipe:[1234]"). */
export function holdsAnyOf(pid: number, targets: ReadonlySet<string>): boolean {
  let fds: string[];
  try {
    fds = readdirSync(`/proc/${pid}/fd`);
  } catch {
    return false;
  }
  return fds.some((fd) => {
    const target = fdTarget(pid, fd);
    return target !== null && targets.has(target);
  });
}

/** A process that wrote a lock or a record: enough to tell whether it still runs. */
export interface ProcessMark {
  pid: number;
  host: string;
  /** Its start time (processStartTime), guarding against a reused pid; null when unknown. */
  startTime: string | null;
}

/**
 * True when the process `mark` names still runs on this machine; a process of another host
 * cannot be told and counts as alive.
 */
export function markAlive(mark: ProcessMark): boolean {
  if (mark.host !== hostname()) return true;
  try {
    process.kill(mark.pid, 0);
  } catch (error) {
    if (errnoCode(error) !== 'EPERM') return false;
  }
  if (isZombie(mark.pid)) return false;
  const now = processStartTime(mark.pid);
  return mark.startTime === null || now === null || now === mark.startTime;
}
