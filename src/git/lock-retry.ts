import { RuntimeError } from '../core/errors.js';
import { ProcessError } from '../process/process-error.js';
import { describeHolder, lockHolder } from './lock-holder.js';

/**
 * How long a git command of ralphtool waits for a lock another process holds (an editor
 * polling `git status`, a `git commit` waiting for its message) before giving up.
 */
export const LOCK_WAIT_MS = 10_000;
const FIRST_DELAY_MS = 50;
const MAX_DELAY_MS = 1_000;

/** Git's refusal when another process holds one of its lock files. */
const LOCKED = /Unable to create '([^']+\.lock)': File exists/;

/**
 * Runs one git command, again and again while it fails only because another process holds a
 * lock of git (`index.lock`, `HEAD.lock`, a ref's lock): git takes the lock before it changes
 * anything, so such a failure did nothing and running the command again is safe. Waits with
 * backoff up to LOCK_WAIT_MS, never touches the lock, and then fails with one line naming the
 * holder. `root` is the repository folder (a git process working there counts as a holder).
 */
export async function retryWhileLocked<T>(
  root: string,
  signal: AbortSignal | undefined,
  run: () => Promise<T>,
): Promise<T> {
  const started = Date.now();
  let delay = FIRST_DELAY_MS;
  for (;;) {
    try {
      return await run();
    } catch (error) {
      const lock = lockedFile(error);
      if (lock === null || signal?.aborted) throw error;
      if (Date.now() - started >= LOCK_WAIT_MS) throw lockedTooLong(lock, root);
      await pause(delay, signal);
      delay = Math.min(delay * 2, MAX_DELAY_MS);
    }
  }
}

/** The lock file a failed git command was refused on, or null for any other failure. */
function lockedFile(error: unknown): string | null {
  if (!(error instanceof ProcessError) || error.exitCode === null) return null;
  return LOCKED.exec(error.stderr)?.[1] ?? null;
}

/** The one line said when a lock stays held past the bound; the run stays resumable. */
export function lockedTooLong(lock: string, root: string): RuntimeError {
  const holder = lockHolder(lock, root);
  const seconds = LOCK_WAIT_MS / 1000;
  if (holder === null) {
    return new RuntimeError(
      `${lock} stayed locked for more than ${seconds} s and no running process holds it: if no git command is running, remove it (\`rm ${lock}\`), then run the same ralphtool command again (a run carries on where it stopped)`,
    );
  }
  return new RuntimeError(
    `${lock} is held by ${describeHolder(holder)} for more than ${seconds} s: let it finish or close the program that runs it (an editor's git integration), then run the same ralphtool command again (a run carries on where it stopped)`,
  );
}

function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    signal?.addEventListener('abort', done, { once: true });
    function done(): void {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
