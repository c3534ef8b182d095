import { attemptRefPrefix } from './paths.js';
import { git } from '../git/git.js';
import type { GitContext } from '../git/git.js';

/** Every saved attempt of a change, sorted by ref name. */
export async function listAttemptRefs(ctx: GitContext, change: string): Promise<string[]> {
  const out = await git(ctx, ['for-each-ref', '--format=%(refname)', attemptRefPrefix(change)]);
  return out.stdout.split('\n').filter((line) => line !== '');
}

/** Deletes the saved attempts of a change in one transaction; returns how many there were. */
export async function deleteAttemptRefs(ctx: GitContext, change: string): Promise<number> {
  const refs = await listAttemptRefs(ctx, change);
  if (refs.length === 0) return 0;
  await git(ctx, ['update-ref', '--stdin', '-z'], {
    input: refs.map((ref) => `delete ${ref}\0\0`).join(''),
    context: 'could not delete the saved attempts',
  });
  return refs.length;
}
