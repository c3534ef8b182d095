/**
 * What a caught value says, read without casts: `catch` gives `unknown`, and Node's system
 * errors carry their errno name (`ENOENT`, `EACCES`, …) in `code`.
 */

/** The errno name of a Node system error (`ENOENT`, `EEXIST`, …), else undefined. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error !== 'object' || error === null || !('code' in error)) return undefined;
  const { code } = error;
  return typeof code === 'string' ? code : undefined;
}

/** The message of an Error, or the thrown value as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** What the machine refused, by errno name: a phrase and what the user can do about it. */
const ENVIRONMENT_FAILURES: Readonly<Record<string, { said: string; fix: string }>> = {
  ENOSPC: { said: 'no space left on the device', fix: 'free some disk space' },
  EDQUOT: { said: 'the disk quota is used up', fix: 'free some space or raise the quota' },
  EROFS: { said: 'the file system is read-only', fix: 'run ralphtool where it can write' },
  EACCES: { said: 'permission denied', fix: 'check the permissions of the folder named' },
  EPERM: { said: 'operation not permitted', fix: 'check the permissions of the folder named' },
  EMFILE: { said: 'too many open files', fix: 'raise the open-file limit (`ulimit -n`)' },
  ENFILE: { said: 'too many open files on the system', fix: 'close other programs and retry' },
  EIO: { said: 'an input/output error of the disk', fix: 'check the disk' },
};

/**
 * A file system failure the machine caused (a full disk, a read-only or forbidden folder), as
 * one line naming it, the path and what to do; null for anything else (a bug stays a bug).
 */
export function environmentFailure(error: unknown): string | null {
  const code = errnoCode(error);
  const known = code === undefined ? undefined : ENVIRONMENT_FAILURES[code];
  if (code === undefined || known === undefined) return null;
  const path =
    typeof error === 'object' && error !== null && 'path' in error && typeof error.path === 'string'
      ? ` (${error.path})`
      : '';
  return `${known.said}${path} [${code}]: ${known.fix}, then \`ralphtool status\` says where the run is`;
}

/** What the user is told of a caught error: the machine's refusal said plainly, else its message. */
export function userMessageOf(error: unknown): string {
  return environmentFailure(error) ?? messageOf(error);
}
