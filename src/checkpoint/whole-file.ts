import { randomBytes } from 'node:crypto';
import { mkdir, open, rename, rm } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { errnoCode } from '../core/error-details.js';

/**
 * How many times a write starts again when its folder vanished under it (an agent's `rm -rf
 * .git/ralphtool` between the folder's creation and the rename); a folder deleted that often
 * is a hostile loop, and the error then says so.
 */
const TRIES_WHEN_THE_FOLDER_VANISHES = 5;

/**
 * Writes a file of ralphtool's own whole: a temporary file beside it (created with `mode`,
 * fsynced), then renamed over it, so that a reader (or a crash) sees the old file or the new
 * one, never half of one — and a new file never exists for a moment with wider permissions.
 * The folder is made when it is missing, again when it is deleted during the write.
 */
export async function writeFileWhole(file: string, text: string, mode = 0o644): Promise<void> {
  for (let tried = 1; ; tried += 1) {
    try {
      await writeOnce(file, text, mode);
      return;
    } catch (error) {
      if (errnoCode(error) !== 'ENOENT' || tried >= TRIES_WHEN_THE_FOLDER_VANISHES) throw error;
    }
  }
}

async function writeOnce(file: string, text: string, mode: number): Promise<void> {
  const dir = dirname(file);
  const temp = join(dir, `.${basename(file)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);
  try {
    await mkdir(dir, { recursive: true });
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(text, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
  await syncDirectory(dir);
}

/** Makes the rename itself durable; some file systems cannot open a directory, which is fine. */
async function syncDirectory(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Durability of the directory entry is best effort; the file content is already synced.
  }
}
