import { readdir, stat } from 'node:fs/promises';
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
 * `openspec list --json`.
 */
export async function lastModifiedIn(dir: string): Promise<Date> {
  let latest: Date | null = null;
  // The entries of a folder are looked at together (the answer is a maximum: order is moot).
  const walk = async (current: string): Promise<void> => {
    const entries = await readdir(current, { withFileTypes: true });
    await Promise.all(
      entries.map(async (entry) => {
        const path = join(current, entry.name);
        try {
          if (entry.isDirectory()) {
            await walk(path);
          } else {
            const { mtime } = await stat(path);
            if (latest === null || mtime > latest) latest = mtime;
          }
        } catch (error) {
          if (!isVanished(error)) throw error;
        }
      }),
    );
  };
  await walk(dir);
  return latest ?? (await stat(dir)).mtime;
}
