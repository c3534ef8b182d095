import { randomBytes } from 'node:crypto';
import { link, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { RuntimeError, UsageError } from '../core/errors.js';
import { markAlive, processStartTime } from '../process/proc.js';
import { errnoCode, messageOf } from '../core/error-details.js';

// Re-exported for run/session.ts and run/loop/orchestrator.ts, which import it from here.
export { processIdentity } from '../process/proc.js';

/** Who holds a lock: enough to tell a live holder from one that died. */
export interface LockHolder {
  pid: number;
  host: string;
  /** The holder's process start time (Linux clock ticks), guarding against a reused pid. */
  startTime: string | null;
  change: string;
  since: string;
}

export type LockState =
  | { kind: 'free' }
  | { kind: 'held'; holder: LockHolder }
  | { kind: 'stale'; holder: LockHolder | null };

export interface HeldLock {
  path: string;
  /** A holder that had died and whose lock was taken over, for the warning. */
  tookOverFrom: LockHolder | null;
  release(): Promise<void>;
}

/** True when the process that wrote the lock is still running on this machine. */
export function holderAlive(holder: LockHolder): boolean {
  return markAlive(holder);
}

export async function readLock(path: string): Promise<LockState> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return { kind: 'free' };
    throw new RuntimeError(`cannot read the lock ${path}: ${messageOf(error)}`);
  }
  const holder = parseHolder(text);
  if (holder === null) return { kind: 'stale', holder: null };
  return holderAlive(holder) ? { kind: 'held', holder } : { kind: 'stale', holder };
}

/**
 * Takes a lock file (exclusive create). A lock whose process is gone is taken over;
 * a live one is refused with a one-line error naming the holder.
 */
export async function acquireLock(
  path: string,
  change: string,
  describeHeld: (holder: LockHolder) => string,
): Promise<HeldLock> {
  const me: LockHolder = {
    pid: process.pid,
    host: hostname(),
    startTime: processStartTime(process.pid),
    change,
    since: new Date().toISOString(),
  };
  let tookOverFrom: LockHolder | null = null;
  for (let tries = 0; tries < 3; tries += 1) {
    // Written whole under a name of its own, then linked into place: the lock appears with its
    // holder in it or not at all. (Created empty and written after, another process reading it
    // in between saw no holder, took it for stale and took it over: two runs held one lock.)
    const pending = `${path}.${String(process.pid)}-${randomBytes(4).toString('hex')}`;
    try {
      await writeFile(pending, `${JSON.stringify(me)}\n`, { flag: 'wx' });
      await link(pending, path);
      return { path, tookOverFrom, release: () => releaseLock(path, me) };
    } catch (error) {
      if (errnoCode(error) !== 'EEXIST') {
        throw new RuntimeError(`cannot create the lock ${path}: ${messageOf(error)}`);
      }
    } finally {
      await rm(pending, { force: true });
    }
    const state = await readLock(path);
    // docs/contract.md ("Start") lists a held lock among the refusals of a start: bad timing, not a failure (2).
    if (state.kind === 'held') throw new UsageError(describeHeld(state.holder));
    if (state.kind === 'stale') {
      tookOverFrom = state.holder;
      // Rename first: of two processes taking over the same stale lock only one wins.
      const aside = `${path}.stale-${process.pid}`;
      try {
        await rename(path, aside);
        await rm(aside, { force: true });
      } catch {
        // Someone else moved it first; try again.
      }
    }
  }
  throw new RuntimeError(`cannot take the lock ${path}: another ralphtool keeps taking it`);
}

/**
 * Best effort: a lock that cannot be removed (the folder became unwritable, the disk is
 * full) is stale once this process exits and is taken over then; failing here would only
 * hide the error that ended the run.
 */
async function releaseLock(path: string, me: LockHolder): Promise<void> {
  try {
    const state = await readLock(path);
    if (state.kind === 'held' && state.holder.pid === me.pid && state.holder.host === me.host) {
      await rm(path, { force: true });
    }
  } catch {
    // see above
  }
}

function parseHolder(text: string): LockHolder | null {
  try {
    const raw = JSON.parse(text) as Partial<LockHolder>;
    if (typeof raw.pid !== 'number' || typeof raw.host !== 'string') return null;
    return {
      pid: raw.pid,
      host: raw.host,
      startTime: typeof raw.startTime === 'string' ? raw.startTime : null,
      change: typeof raw.change === 'string' ? raw.change : '?',
      since: typeof raw.since === 'string' ? raw.since : '?',
    };
  } catch {
    return null;
  }
}
