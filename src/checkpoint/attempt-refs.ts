import { attemptRefPrefix } from './paths.js';
import { git } from '../git/git.js';
import type { GitContext } from '../git/git.js';

/** Every saved attempt of a change, sorted by ref name. */
export async function listAttemptRefs(ctx: GitContext, change: string): Promise<string[]> {
  const out = await git(ctx, ['for-each-ref', '--format=%(refname)', attemptRefPrefix(change)]);
  return out.stdout.split('\n').filter((line) => line !== '');
}

/** Every saved attempt of a change with the commit it points at. */
export async function attemptRefTips(
  ctx: GitContext,
  change: string,
): Promise<Map<string, string>> {
  const out = await git(ctx, [
    'for-each-ref',
    '--format=%(refname) %(objectname)',
    attemptRefPrefix(change),
  ]);
  const tips = new Map<string, string>();
  for (const line of out.stdout.split('\n')) {
    const space = line.lastIndexOf(' ');
    if (space > 0) tips.set(line.slice(0, space), line.slice(space + 1));
  }
  return tips;
}

/**
 * Deletes the saved attempts of a change, except `keep`, in one transaction; returns how many
 * it deleted.
 */
export async function deleteAttemptRefs(
  ctx: GitContext,
  change: string,
  keep: readonly string[] = [],
): Promise<number> {
  const refs = (await listAttemptRefs(ctx, change)).filter((ref) => !keep.includes(ref));
  if (refs.length === 0) return 0;
  await git(ctx, ['update-ref', '--stdin', '-z'], {
    input: refs.map((ref) => `delete ${ref}\0\0`).join(''),
    context: 'could not delete the saved attempts',
  });
  return refs.length;
}
