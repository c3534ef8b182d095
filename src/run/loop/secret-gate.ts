import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { secretWrittenIn, type Secret } from '../../core/redact.js';
import { changedFilesSince } from '../../git/changed-files.js';
import type { GitContext } from '../../git/git.js';

/** Files larger than this are not read (a build output, a data file): secrets live in small ones. */
const MAX_SCANNED_BYTES = 2 * 1024 * 1024;

/** Where an attempt wrote a secret: the file, and the name of the secret (never its value). */
export interface WrittenSecret {
  path: string;
  name: string;
}

/**
 * The first file the attempt added or changed since the checkpoint (untracked ones too, ignored
 * ones never: they are never committed or pushed) that holds the value of a secret; null when
 * none does. Binary files (a NUL byte) and files past 2 MiB are not read.
 */
export async function findWrittenSecret(
  ctx: GitContext,
  checkpointSha: string,
  secrets: readonly Secret[],
): Promise<WrittenSecret | null> {
  if (secrets.length === 0) return null;
  const changed = await changedFilesSince(ctx, checkpointSha);
  for (const entry of changed) {
    if (entry.status === 'D') continue;
    const file = join(ctx.cwd, entry.path);
    const size = await stat(file).then(
      (s) => (s.isFile() ? s.size : -1),
      () => -1,
    );
    if (size < 0 || size > MAX_SCANNED_BYTES) continue;
    const bytes = await readFile(file).catch(() => null);
    if (bytes === null || bytes.includes(0)) continue;
    const found = secretWrittenIn(bytes.toString('utf8'), secrets);
    if (found !== null) return { path: entry.path, name: found.name };
  }
  return null;
}

/** The reason an attempt that wrote a secret fails with: the file and the name, never the value. */
export function secretWrittenReason(found: WrittenSecret): string {
  return `the attempt wrote the value of ${found.name} (a secret) into ${found.path}: this run pushes its work to a remote, so never write a secret into a file; read it from the environment when the program runs`;
}
