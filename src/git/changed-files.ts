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
 * Files of the work tree that differ from a commit (the user's original position, or an
 * attempt's checkpoint), new untracked files included. With no commit (an unborn branch) every
 * file is new. One `git status` when HEAD is at the commit (an attempt judged on its checkpoint,
 * nearly always), else a diff against the commit and a listing of the untracked files.
 */
export async function changedFilesSince(
  ctx: GitContext,
  commit: string | null,
): Promise<ChangedPath[]> {
  if (commit !== null) {
    const fromStatus = await changedFromStatus(ctx, commit);
    if (fromStatus !== null) return fromStatus;
  }
  return changedFromDiff(ctx, commit);
}

/** The same answer from two git processes, whatever HEAD is (exported for its test). */
export async function changedFromDiff(
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

/**
 * `git status` against HEAD, when HEAD is `commit`: what differs from it in the index or the
 * work tree, and the untracked files one by one (a nested repository as one `path/`, as
 * `ls-files --others` lists it). Null when HEAD is elsewhere (the agent committed or moved it).
 * Exported for its test.
 */
export async function changedFromStatus(
  ctx: GitContext,
  commit: string,
): Promise<ChangedPath[] | null> {
  const out = (
    await git(
      ctx,
      [
        'status',
        '--porcelain=v2',
        '--branch',
        '--no-ahead-behind',
        '--renames',
        '-z',
        '--untracked-files=all',
      ],
      // A read only, as the diff above.
      { env: { GIT_OPTIONAL_LOCKS: '0' } },
    )
  ).stdout;
  const entries = parseStatusV2Z(out);
  return entries.head === commit ? sortByPath(entries.changed) : null;
}

/**
 * Parses `status --porcelain=v2 --branch -z` into what differs between HEAD and the work tree
 * (the index between them does not count): `1 XY … path`, `2 XY … Rscore path\0from`,
 * `u XY … path`, `? path`.
 */
export function parseStatusV2Z(output: string): { head: string | null; changed: ChangedPath[] } {
  const fields = output.split('\0');
  const changed: ChangedPath[] = [];
  let head: string | null = null;
  for (let i = 0; i < fields.length; i++) {
    const entry = fields[i] ?? '';
    if (entry.startsWith('# branch.oid ')) head = entry.slice('# branch.oid '.length);
    if (entry === '' || entry.startsWith('#')) continue;
    const kind = entry[0];
    if (kind === '?') {
      changed.push({ status: 'A', path: entry.slice(2) });
      continue;
    }
    const xy = entry.slice(2, 4);
    // The path follows a fixed number of space-separated fields (it may hold spaces itself).
    const before = kind === '1' ? 8 : kind === '2' ? 9 : kind === 'u' ? 10 : -1;
    if (before < 0) continue;
    const path = afterFields(entry, before);
    const goneFromWorkTree = xy[1] === 'D';
    if (kind === '2') {
      const from = fields[i + 1] ?? '';
      i += 1;
      if (xy[0] === 'C')
        changed.push({ status: 'A', path }); // a copy: its source stays
      else
        changed.push(goneFromWorkTree ? { status: 'D', path: from } : { status: 'R', path, from });
      continue;
    }
    const inHead = xy[0] !== 'A';
    if (!inHead && goneFromWorkTree) continue; // staged, then deleted: in neither
    if (!inHead) changed.push({ status: 'A', path });
    else if (xy[0] === 'D' || goneFromWorkTree) changed.push({ status: 'D', path });
    else changed.push({ status: 'M', path });
  }
  return { head, changed };
}

/** What follows the first `count` space-separated fields of a status entry. */
function afterFields(entry: string, count: number): string {
  let at = 0;
  for (let n = 0; n < count; n++) at = entry.indexOf(' ', at) + 1;
  return entry.slice(at);
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
