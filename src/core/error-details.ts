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
