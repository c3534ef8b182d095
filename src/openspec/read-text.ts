import { readFileSync, statSync } from 'node:fs';
import { readFile, stat } from 'node:fs/promises';
import { RuntimeError } from '../core/errors.js';
import { errnoCode, messageOf } from '../core/error-details.js';

function reasonFor(code: string | undefined, error: unknown): string {
  switch (code) {
    case 'EACCES':
    case 'EPERM':
      return 'permission denied; check its permissions';
    case 'EISDIR':
      return 'it is a directory, expected a file';
    case 'ELOOP':
      return 'it is a symbolic link that loops';
    default:
      return messageOf(error);
  }
}

/**
 * Reads a change file as UTF-8 (invalid bytes become U+FFFD, as in OpenSpec).
 * A missing file is null, since proposal.md, design.md and even tasks.md are
 * optional; anything else that stops the read is a RuntimeError naming the file.
 * A FIFO or device is refused before opening it, so a read can never block forever.
 */
export async function readOptionalText(path: string, shownAs: string): Promise<string | null> {
  try {
    const info = await stat(path);
    if (info.isDirectory()) throw Object.assign(new Error('EISDIR'), { code: 'EISDIR' });
    if (!info.isFile()) {
      throw new RuntimeError(
        `cannot read ${shownAs}: it is not a regular file; replace it with one`,
      );
    }
    const bytes = await readFile(path);
    return bytes.toString('utf8');
  } catch (error) {
    return missingOrRefused(error, shownAs);
  }
}

/**
 * `readOptionalText`, synchronously, for reading many small files in a row (`list` reads every
 * change's tasks.md): a read through the thread pool costs several times what the read does.
 */
export function readOptionalTextSync(path: string, shownAs: string): string | null {
  try {
    const info = statSync(path);
    if (info.isDirectory()) throw Object.assign(new Error('EISDIR'), { code: 'EISDIR' });
    if (!info.isFile()) {
      throw new RuntimeError(
        `cannot read ${shownAs}: it is not a regular file; replace it with one`,
      );
    }
    return readFileSync(path).toString('utf8');
  } catch (error) {
    return missingOrRefused(error, shownAs);
  }
}

/** A missing file is null; anything else that stopped the read, one RuntimeError naming it. */
function missingOrRefused(error: unknown, shownAs: string): null {
  if (error instanceof RuntimeError) throw error;
  const code = errnoCode(error);
  if (code === 'ENOENT' || code === 'ENOTDIR') return null;
  throw new RuntimeError(`cannot read ${shownAs}: ${reasonFor(code, error)}`);
}
