import { randomBytes } from 'node:crypto';
import type { ProcStat } from './proc.js';
import {
  environmentHas,
  fdTarget,
  forksSinceBoot,
  holdsAnyOf,
  isDying,
  lastPid,
  listPids,
  pidMax,
  processCommand,
  processStat,
  processStartTime,
} from './proc.js';

/**
 * Put into the environment of every program whose descendants are watched, with a value of
 * its own: the one mark that survives `setsid`, a double fork and closed output pipes, since
 * every process inherits its parent's environment (the way CI servers find a build's leftovers).
 */
export const PROCESS_TAG_VARIABLE = 'RALPHTOOL_PROCESS_TAG';

/**
 * How often /proc is read while the program runs, to remember who it started. A look costs
 * about 10 ms with 100 processes; once a second keeps an hour-long attempt cheap, and what
 * escapes between two looks is still found by its tag or the pipes it holds.
 */
const SCAN_INTERVAL_MS = 1_000;

/** A process started by a program that left the program's process group, found and killed. */
export interface StrayProcess {
  pid: number;
  /** Its command line as it was when it was found (cut to 200 characters). */
  command: string;
}

/**
 * The pids a leader's descendants can have, `leader`…`last`, when the kernel cannot have wrapped
 * around since the leader was made; null (read them all) when it may have or a figure is unknown.
 */
export function pidsSince(p: {
  leader: number;
  last: number | null;
  forks: number | null;
  forksAtStart: number | null;
  pidMax: number | null;
}): { from: number; to: number } | null {
  const { leader, last, forks, forksAtStart, pidMax: max } = p;
  if (last === null || forks === null || forksAtStart === null || max === null) return null;
  if (last < leader || forks - forksAtStart >= max - leader) return null;
  return { from: leader, to: last };
}

/** A new value for PROCESS_TAG_VARIABLE, unique to one program. */
export function newProcessTag(): string {
  return `${process.pid}-${randomBytes(8).toString('hex')}`;
}

/**
 * Remembers every process a program starts, so that the ones that leave its process group
 * (`setsid`, a double fork, a shell's own job control) can be found and killed once it ends:
 * killing the group alone misses them, and one holding the program's output pipes or still
 * writing files would outlive the attempt. Found by, in order of reach: the parent chain and
 * the session, read from /proc while the program runs (a descendant once seen stays known, even
 * when its parent dies); who holds the program's stdout/stderr pipes; who carries its tag in
 * its environment. A process is remembered with its start time and only signalled while it
 * still has it, so a pid the OS gave to someone else meanwhile is never killed.
 * Where there is no /proc every answer is empty and only the group is killed.
 */
export class DescendantWatch {
  private readonly known = new Map<number, string>();
  private readonly pipes = new Set<string>();
  private readonly found = new Map<number, { start: string; command: string }>();
  /** Processes of the program's seen on their way out, by pid and start time (`dyingLeft`). */
  private readonly dying = new Map<number, string>();
  private timer: NodeJS.Timeout | undefined;
  /**
   * When the leader started (clock ticks since boot): a process that started before it cannot
   * be of its making, so `strays` reads the pipes and environment of none of those (most of
   * the machine's processes; each costs a directory listing and a read per descriptor).
   */
  private readonly leaderStart: bigint | null;
  /** Processes made since boot when the watch began (the leader was made before). */
  private readonly forksAtStart = forksSinceBoot();

  constructor(
    private readonly leader: number,
    private readonly tag: string,
  ) {
    const start = processStartTime(leader);
    this.leaderStart = start === null ? null : BigInt(start);
    for (const fd of [1, 2]) {
      const target = fdTarget(leader, fd);
      if (target?.startsWith('pipe:')) this.pipes.add(target);
    }
    // No look now: the leader has had no time to start anything.
    this.timer = setInterval(() => this.scan(), SCAN_INTERVAL_MS);
    this.timer.unref();
  }

  /**
   * Every process of the program's making got its pid after the leader's. While the kernel
   * cannot have wrapped its pids around since (fewer processes and threads were made than pids
   * are left above the leader), those are the pids from the leader's to the last one given, and
   * only they are read, not each process of the machine (most of a look's cost, paid after every
   * attempt). Read after the listing: a pid listed was given before the last one.
   */
  private givenSinceLeader(): (pid: number) => boolean {
    const range = pidsSince({
      leader: this.leader,
      last: lastPid(),
      forks: forksSinceBoot(),
      forksAtStart: this.forksAtStart,
      pidMax: pidMax(),
    });
    return range === null ? () => true : (pid) => pid >= range.from && pid <= range.to;
  }

  /** Stops reading /proc on a timer (the program ended). */
  close(): void {
    clearInterval(this.timer);
  }

  /**
   * One look at /proc: every descendant of the leader seen now is remembered. Returns what it
   * read of each live process (zombies left out).
   */
  scan(): Map<number, ProcStat> {
    const stats = new Map<number, ProcStat>();
    const pids = listPids();
    const inRange = this.givenSinceLeader();
    for (const pid of pids) {
      if (!inRange(pid)) continue;
      const stat = pid === process.pid ? null : processStat(pid);
      if (stat !== null && stat.state !== 'Z') stats.set(pid, stat);
    }
    for (const [pid, start] of this.known) {
      if (stats.get(pid)?.startTime !== start) this.known.delete(pid);
    }
    const ours = (pid: number): boolean => pid === this.leader || this.known.has(pid);
    for (let grew = true; grew;) {
      grew = false;
      for (const [pid, stat] of stats) {
        if (this.known.has(pid)) continue;
        // The leader runs in a session of its own (detached): a process group of the agent's
        // own making (a shell's job control) is still in that session.
        if (ours(stat.ppid) || stat.session === this.leader || stat.pgrp === this.leader) {
          this.known.set(pid, stat.startTime);
          grew = true;
        }
      }
    }
    return stats;
  }

  /**
   * The live processes of the program's making that are outside its process group (the group
   * is killed as a whole), by pid and start time. Each new one is remembered, with its
   * command line, for the report (`reported`).
   */
  strays(): Map<number, string> {
    const alive = new Map<number, string>();
    for (const [pid, stat] of this.scan()) {
      if (pid === process.ppid || pid <= 1 || stat.pgrp === this.leader) continue;
      if (this.leaderStart !== null && BigInt(stat.startTime) < this.leaderStart) continue;
      const ours =
        this.known.get(pid) === stat.startTime ||
        holdsAnyOf(pid, this.pipes) ||
        environmentHas(pid, PROCESS_TAG_VARIABLE, this.tag);
      if (!ours) continue;
      // Already on its way out (a sandbox's processes, killed with their namespace): it runs
      // nothing more, so it is neither left running nor to be killed; its end is still awaited.
      if (isDying(pid)) {
        this.dying.set(pid, stat.startTime);
        continue;
      }
      alive.set(pid, stat.startTime);
      if (this.found.get(pid)?.start !== stat.startTime) {
        this.found.set(pid, { start: stat.startTime, command: processCommand(pid) ?? '?' });
      }
    }
    return alive;
  }

  /**
   * Whether a process of the program's seen on its way out (`strays`) is still there: alive or
   * exiting, not yet a zombie, with the start time it was seen with.
   */
  dyingLeft(): boolean {
    for (const [pid, start] of this.dying) {
      const stat = processStat(pid);
      if (stat === null || stat.startTime !== start || stat.state === 'Z') this.dying.delete(pid);
    }
    return this.dying.size > 0;
  }

  /** Signals each process that still has the start time it was found with. */
  static signal(processes: ReadonlyMap<number, string>, signal: NodeJS.Signals): void {
    for (const [pid, start] of processes) {
      if (processStartTime(pid) !== start) continue;
      try {
        process.kill(pid, signal);
      } catch {
        // gone meanwhile
      }
    }
  }

  /** Every stray found so far, in the order found. */
  reported(): StrayProcess[] {
    return [...this.found].map(([pid, { command }]) => ({ pid, command }));
  }
}
