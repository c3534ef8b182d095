import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { setTimeout as pause } from 'node:timers/promises';
import { errnoCode, messageOf } from '../core/error-details.js';
import { markAlive, processStartTime, type ProcessMark } from '../process/proc.js';

/**
 * How old a lock may be before it is taken over whoever holds it. A hold lasts one read and one
 * write of a small file (milliseconds); a lock older than this is left by a holder that is
 * stopped, stuck, or on another machine sharing the folder that crashed (whose death cannot be
 * seen from here), and waiting on it would stall every run of the user.
 */
export const FILE_LOCK_STALE_MS = 5_000;
const FIRST_DELAY_MS = 2;
const MAX_DELAY_MS = 50;

/**
 * Runs `update` while holding the lock file `lock`, so that the read-modify-write of a file
 * several processes of the user share is one at a time: the lock is written whole under a name
 * of its own and linked into place (it appears with its holder in it or not at all), a holder
 * that died, or one older than FILE_LOCK_STALE_MS, is taken over (renamed aside first: of two
 * processes only one wins), a live one is waited for with a short backoff. The lock's folder is
 * made when it is missing.
 */
export async function withFileLock<T>(lock: string, update: () => Promise<T>): Promise<T> {
  const me: ProcessMark = {
    pid: process.pid,
    host: hostname(),
    startTime: processStartTime(process.pid),
  };
  const text = `${JSON.stringify(me)}\n`;
  let delay = FIRST_DELAY_MS;
  await mkdir(path.dirname(lock), { recursive: true });
  for (;;) {
    if (await take(lock, text)) break;
    const seen = await holderOf(lock);
    if (seen === 'gone') continue;
    const { holder, raw, since } = seen;
    if (holder === null || !markAlive(holder) || Date.now() - since > FILE_LOCK_STALE_MS) {
      await setAside(lock, raw);
      continue;
    }
    await pause(delay);
    delay = Math.min(delay * 2, MAX_DELAY_MS);
  }
  try {
    return await update();
  } finally {
    await rm(lock, { force: true });
  }
}

/** True when this process now holds the lock; false when another one does. */
async function take(lock: string, text: string): Promise<boolean> {
  const pending = `${lock}.${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await writeFile(pending, text, { flag: 'wx', mode: 0o600 });
    await link(pending, lock);
    return true;
  } catch (error) {
    if (errnoCode(error) === 'EEXIST') return false;
    throw new Error(`cannot take the lock ${lock}: ${messageOf(error)}`, { cause: error });
  } finally {
    await rm(pending, { force: true });
  }
}

/**
 * The lock's text, its holder (null when it names none: stale) and when it was taken (its
 * modification time); `gone` when it was released meanwhile.
 */
async function holderOf(
  lock: string,
): Promise<{ raw: string; holder: ProcessMark | null; since: number } | 'gone'> {
  try {
    const since = (await stat(lock)).mtimeMs;
    const raw = await readFile(lock, 'utf8');
    return { raw, holder: parseMark(raw), since };
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return 'gone';
    throw error;
  }
}

function parseMark(raw: string): ProcessMark | null {
  try {
    const mark = JSON.parse(raw) as Partial<ProcessMark>;
    if (typeof mark.pid !== 'number' || typeof mark.host !== 'string') return null;
    return {
      pid: mark.pid,
      host: mark.host,
      startTime: typeof mark.startTime === 'string' ? mark.startTime : null,
    };
  } catch {
    return null;
  }
}

/**
 * A dead holder's lock (its text `stale`) taken out of the way: renamed first, so only one
 * taker removes it. Another process may have taken the stale lock over between the read and
 * the rename: a lock renamed aside that is not the stale one is linked back.
 */
async function setAside(lock: string, stale: string): Promise<void> {
  const aside = `${lock}.stale-${process.pid}-${randomBytes(4).toString('hex')}`;
  try {
    await rename(lock, aside);
  } catch {
    return; // Another process moved it first.
  }
  try {
    if ((await readFile(aside, 'utf8')) !== stale) await link(aside, lock);
  } catch {
    // A new holder took the place meanwhile: it holds the lock.
  } finally {
    await rm(aside, { force: true });
  }
}
