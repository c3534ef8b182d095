import { git, type GitContext } from './git.js';

/** Raw stdout: `gitOut` trims, which would eat spaces at the ends of file names. */
async function rawOut(ctx: GitContext, args: readonly string[]): Promise<string> {
  return (await git(ctx, args)).stdout;
}

export type ChangeStatus = 'A' | 'M' | 'D' | 'R';

export interface ChangedPath {
  status: ChangeStatus;
  path: string;
  from?: string;
}

/**
 * Files of the work tree that differ from a commit (the user's original position),
 * new untracked files included. With no commit (an unborn branch) every file is new.
 */
export async function changedFilesSince(
  ctx: GitContext,
  commit: string | null,
): Promise<ChangedPath[]> {
  const untracked = splitZ(await rawOut(ctx, ['ls-files', '--others', '--exclude-standard', '-z']));
  if (commit === null) {
    const tracked = splitZ(await rawOut(ctx, ['ls-files', '-z']));
    return sortByPath([...tracked, ...untracked].map((path) => ({ status: 'A' as const, path })));
  }
  // A read only: git may not refresh the index's stat data while at it (that write would change
  // the git directory's print, and send the attempt's accept down its full path).
  const diff = (
    await git(ctx, ['diff', '--name-status', '-M', '-z', commit, '--'], {
      env: { GIT_OPTIONAL_LOCKS: '0' },
    })
  ).stdout;
  return sortByPath([
    ...parseNameStatusZ(diff),
    ...untracked.map((path) => ({ status: 'A' as const, path })),
  ]);
}

/** Parses `git diff --name-status -z`: `M\0path\0`, `R100\0old\0new\0`, … */
export function parseNameStatusZ(output: string): ChangedPath[] {
  const fields = output.split('\0');
  const entries: ChangedPath[] = [];
  for (let i = 0; i < fields.length;) {
    const code = fields[i] ?? '';
    if (code === '') break;
    const letter = code[0];
    if (letter === 'R' || letter === 'C') {
      const from = fields[i + 1] ?? '';
      const to = fields[i + 2] ?? '';
      entries.push(letter === 'R' ? { status: 'R', path: to, from } : { status: 'A', path: to });
      i += 3;
      continue;
    }
    const path = fields[i + 1] ?? '';
    entries.push({ status: letter === 'A' ? 'A' : letter === 'D' ? 'D' : 'M', path });
    i += 2;
  }
  return entries;
}

function splitZ(output: string): string[] {
  return output.split('\0').filter((p) => p !== '');
}

function sortByPath(entries: ChangedPath[]): ChangedPath[] {
  return entries.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
