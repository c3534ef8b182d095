import { statSync } from 'node:fs';
import { UsageError } from '../../core/errors.js';

/** `-C <dir>` must name an existing directory; say so plainly instead of failing later. */
export function assertDirectory(dir: string): void {
  let isDir: boolean;
  try {
    isDir = statSync(dir).isDirectory();
  } catch {
    isDir = false;
  }
  if (!isDir) throw new UsageError(`${dir} is not a directory (check -C)`);
}
