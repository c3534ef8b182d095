import { git, type GitContext } from './git.js';

/**
 * The paths a commit changed from its first parent (added or modified; none for a root commit's
 * parent-less diff is every file).
 */
export async function pathsChangedBy(ctx: GitContext, commit: string): Promise<string[]> {
  const out = await git(
    ctx,
    [
      'diff-tree',
      '-r',
      '-z',
      '--no-commit-id',
      '--name-only',
      '--diff-filter=AMR',
      '--root',
      commit,
    ],
    { context: `could not list what ${commit.slice(0, 12)} changed` },
  );
  return out.stdout.split('\0').filter((p) => p !== '');
}

/**
 * Which of `paths` in `commit`'s tree hold any of `needles` (fixed strings; binary files left
 * out). The needles go to git on stdin, never on its command line (another user's `ps` would see
 * them there).
 */
export async function pathsHolding(
  ctx: GitContext,
  commit: string,
  paths: readonly string[],
  needles: readonly string[],
): Promise<string[]> {
  if (paths.length === 0 || needles.length === 0) return [];
  // A command line has a length limit: many paths are searched a few hundred at a time.
  if (paths.length > 500) {
    const found: string[] = [];
    for (let i = 0; i < paths.length; i += 500) {
      found.push(...(await pathsHolding(ctx, commit, paths.slice(i, i + 500), needles)));
    }
    return found;
  }
  const result = await git(
    ctx,
    [
      'grep',
      '-l',
      '-z',
      '-F',
      '-I',
      '-f',
      '-',
      commit,
      '--',
      ...paths.map((p) => `:(literal)${p}`),
    ],
    { input: `${needles.join('\n')}\n`, allowFailure: true },
  );
  // 1: nothing found; anything else but 0 is a failure git explains.
  if (result.exitCode === 1) return [];
  if (result.exitCode !== 0) {
    throw new Error(`git grep failed: ${result.stderr.trim().split('\n')[0] ?? ''}`);
  }
  const prefix = `${commit}:`;
  return result.stdout
    .split('\0')
    .filter((p) => p !== '')
    .map((p) => (p.startsWith(prefix) ? p.slice(prefix.length) : p));
}
