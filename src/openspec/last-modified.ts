import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { errnoCode } from '../core/error-details.js';

function isVanished(error: unknown): boolean {
  const code = errnoCode(error);
  return code === 'ENOENT' || code === 'ELOOP';
}

/**
 * Newest modification time of any file below `dir`, computed as OpenSpec's
 * `list` does (`getLastModified`): folders are walked (symlinked folders are
 * stat'ed, not walked), entries that vanish or loop are skipped, and an empty
 * folder falls back to its own mtime. Same rule, so `lastModified` agrees with
 * `openspec list --json`. Synchronous: a change is a few small folders, and `list` walks
 * every change (600 files for 100 changes: ~10 ms this way, 40–60 ms through the thread pool).
 */
export function lastModifiedIn(dir: string): Date {
  let latest: Date | null = null;
  const walk = (current: string): void => {
    for (const entry of readdirSync(current, { withFileTypes: true })) {
      const path = join(current, entry.name);
      try {
        if (entry.isDirectory()) {
          walk(path);
        } else {
          const { mtime } = statSync(path);
          if (latest === null || mtime > latest) latest = mtime;
        }
      } catch (error) {
        if (!isVanished(error)) throw error;
      }
    }
  };
  walk(dir);
  return latest ?? statSync(dir).mtime;
}
