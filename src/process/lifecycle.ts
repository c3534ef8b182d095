import { spawn } from 'node:child_process';
import type { Readable, Writable } from 'node:stream';
import {
  DescendantWatch,
  newProcessTag,
  PROCESS_TAG_VARIABLE,
  type StrayProcess,
} from './descendants.js';
import { signalGroup, trackGroup, untrackGroup } from './process-group.js';
import { settleAfterExit } from './settle.js';

/**
 * Time a process group gets between SIGTERM and SIGKILL, the same for every child ralphtool
 * stops. 3 s: an agent gets the time to end its turn and let what it started (test runners,
 * dev servers) shut down, and a stop or a timeout still never hangs noticeably on a child that
 * ignores SIGTERM. git and most tools exit at once on SIGTERM, so they never wait it out.
 */
export const GRACE_MS = 3_000;

export interface ChildLimits {
  /** Wall-clock limit in milliseconds; 0 or undefined = none. */
  wallTimeoutMs?: number | undefined;
  /** Limit on time without any stdout/stderr output; 0 or undefined = none. */
  idleTimeoutMs?: number | undefined;
  /** Aborting stops the process group. */
  signal?: AbortSignal | undefined;
  /** Time between SIGTERM and SIGKILL when the process group is stopped; GRACE_MS by default. */
  graceMs?: number | undefined;
}

export interface ChildSpec extends ChildLimits {
  cwd: string;
  /** The child's whole environment: nothing is inherited that is not in it. */
  env: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed. Without it stdin is empty. */
  input?: string | Uint8Array | undefined;
  /**
   * Also find and kill what the program started outside its process group (descendants.ts);
   * its environment then gets PROCESS_TAG_VARIABLE too. For agents, which start daemons.
   */
  watchDescendants?: boolean | undefined;
  /** False: stdout does not reset the idle timer by itself; the caller calls `active()`. */
  stdoutIsActivity?: boolean | undefined;
  /**
   * A program spoken to for as long as it runs (`git update-ref --stdin`): stdin stays open
   * (GroupChild's `stdin`; `input` is not written), and the child keeps ralphtool alive only while
   * the caller holds it (`hold`). Closing stdin ends it; so does ralphtool's own exit.
   */
  conversation?: boolean | undefined;
}

/** How a child ended, the same for every way of running one. */
export interface ChildEnd {
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  /** The limit that stopped the program, if one did. */
  timedOut: 'wall' | 'idle' | null;
  aborted: boolean;
  /** Why the program could not be started at all (ENOENT: not found, EACCES…), else null. */
  spawnError: NodeJS.ErrnoException | null;
  /** What it left running outside its process group, killed (watchDescendants only). */
  strays?: StrayProcess[];
}

/** A program started by startChild, read through its output streams until it ends. */
export interface GroupChild {
  /** The process group id (the leader's pid); undefined when it could not be started. */
  readonly pgid: number | undefined;
  readonly stdout: Readable;
  readonly stderr: Readable;
  /** Stops the whole group: SIGTERM now, SIGKILL after the grace period. */
  stop(): void;
  /** Resets the idle timer (output that is progress). */
  active(): void;
  /** A conversation's stdin (ChildSpec `conversation`); null otherwise. */
  readonly stdin: Writable | null;
  /**
   * A conversation keeps ralphtool's event loop alive only while held (an answer is awaited):
   * idle, it never keeps the process from exiting. No effect on other children.
   */
  hold(held: boolean): void;
  /**
   * Settles, never rejecting, once the program exited, what it left running was killed and its
   * output pipes closed (or were given up on: a leftover holding them never keeps it waiting).
   */
  readonly ended: Promise<ChildEnd>;
}

/** The end of a program that was never started because its signal was already aborted. */
export const ABORTED_BEFORE_START: ChildEnd = {
  exitCode: null,
  signal: null,
  timedOut: null,
  aborted: true,
  spawnError: null,
};

/**
 * The one child-process lifecycle of ralphtool: an argument array (never a shell), its own
 * process group, which ralphtool kills when it exits itself; a wall-clock limit, an idle limit
 * and an abort signal, each of which stops the whole group (SIGTERM, then SIGKILL after the
 * grace period). The leader's exit ends the program: whatever it left running in its group (and
 * with watchDescendants, out of it) is stopped too (settle.ts), so nothing it started outlives
 * it and no leftover holding its pipes keeps it from ending.
 * Callers check for an already aborted signal first (see ABORTED_BEFORE_START).
 */
export function startChild(command: string, args: readonly string[], spec: ChildSpec): GroupChild {
  const tag = spec.watchDescendants ? newProcessTag() : null;
  const child = spawn(command, [...args], {
    cwd: spec.cwd,
    env: tag === null ? spec.env : { ...spec.env, [PROCESS_TAG_VARIABLE]: tag },
    detached: true,
    stdio: 'pipe',
  });
  const pgid = child.pid;
  if (pgid !== undefined) trackGroup(pgid);
  const watch = pgid !== undefined && tag !== null ? new DescendantWatch(pgid, tag) : null;
  const grace = spec.graceMs ?? GRACE_MS;

  let timedOut: ChildEnd['timedOut'] = null;
  let aborted = false;
  let spawnError: NodeJS.ErrnoException | null = null;
  let killTimer: NodeJS.Timeout | undefined;
  const stop = (): void => {
    if (pgid === undefined || killTimer) return;
    // A group already gone (the usual case once the leader exited) needs no SIGKILL either.
    if (!signalGroup(pgid, 'SIGTERM')) return;
    killTimer = setTimeout(() => signalGroup(pgid, 'SIGKILL'), grace);
  };
  const limit = (ms: number | undefined, kind: 'wall' | 'idle'): NodeJS.Timeout | undefined =>
    ms !== undefined && ms > 0
      ? setTimeout(() => {
          timedOut ??= kind;
          stop();
        }, ms)
      : undefined;
  const wallTimer = limit(spec.wallTimeoutMs, 'wall');
  const idleTimer = limit(spec.idleTimeoutMs, 'idle');
  // A stop or a limit after the leader exited cuts the tidying up short.
  let hurry = (): void => undefined;
  const hurried = new Promise<void>((resolve) => (hurry = resolve));
  const onAbort = (): void => {
    aborted = true;
    stop();
    hurry();
  };
  if (spec.signal?.aborted) onAbort();
  else spec.signal?.addEventListener('abort', onAbort, { once: true });

  const active = (): void => {
    idleTimer?.refresh();
  };
  if (spec.stdoutIsActivity !== false) child.stdout.on('data', active);
  child.stderr.on('data', active);
  // A child that exits without reading its input closes the pipe: not our failure.
  child.stdin.on('error', () => undefined);
  if (!spec.conversation) child.stdin.end(spec.input ?? '');
  const hold = (held: boolean): void => {
    if (!spec.conversation) return;
    for (const handle of [child, child.stdin, child.stdout, child.stderr] as Refable[]) {
      if (held) handle.ref?.();
      else handle.unref?.();
    }
  };
  hold(false);

  child.on('error', (error: NodeJS.ErrnoException) => {
    if (child.pid === undefined) spawnError = error;
  });
  let pipesClosed = (): void => undefined;
  const closed = new Promise<ChildEnd>((resolve) => {
    child.on('close', (code: number | null, signal: NodeJS.Signals | null) => {
      pipesClosed();
      resolve({
        exitCode: spawnError ? null : code,
        signal: spawnError ? null : signal,
        timedOut,
        aborted,
        spawnError,
      });
    });
  });
  let settled: Promise<void> = Promise.resolve();
  child.on('exit', () => {
    // The leader's exit decides the outcome; a limit reached meanwhile is no timeout of the
    // program's. What it left behind is stopped so that the pipes close and nothing writes on.
    clearTimeout(wallTimer);
    clearTimeout(idleTimer);
    if (pgid === undefined) return;
    settled = settleAfterExit({
      pgid,
      watch,
      graceMs: grace,
      pipesClosed: new Promise<void>((resolve) => (pipesClosed = resolve)),
      hurry: hurried,
      destroyPipes: () => {
        child.stdout.destroy();
        child.stderr.destroy();
      },
    });
  });
  const ended = closed.then(async (end) => {
    await settled;
    clearTimeout(wallTimer);
    clearTimeout(idleTimer);
    clearTimeout(killTimer);
    spec.signal?.removeEventListener('abort', onAbort);
    watch?.close();
    if (pgid !== undefined) untrackGroup(pgid);
    return watch ? { ...end, aborted, strays: watch.reported() } : { ...end, aborted };
  });

  const stdin = spec.conversation ? child.stdin : null;
  return { pgid, stdout: child.stdout, stderr: child.stderr, stdin, stop, active, hold, ended };
}

/** A child process or one of its pipes (a socket): both can stop keeping the event loop alive. */
interface Refable {
  ref?: () => unknown;
  unref?: () => unknown;
}
