import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { errnoCode } from '../core/error-details.js';
import type { RepoLocation } from './repo.js';

/**
 * Git's own files read straight from the git directory, without starting a git process (~2–3
 * ms each): where HEAD points, what a ref holds (one, or all those a run that pushes reads
 * before every push), and a print of the files any
 * git command that moves HEAD, a branch or the index rewrites. Only the plain files-backend
 * layout is read; anything else (a packed branch, a reftable repository, a detached HEAD)
 * gives null, and the caller asks git instead.
 */

const SHA = /^(?:[0-9a-f]{40}|[0-9a-f]{64})$/;

/** The commit a local branch's loose ref file holds; null when that file does not say. */
export async function looseBranchSha(repo: RepoLocation, branch: string): Promise<string | null> {
  const text = await readOrNull(join(repo.gitCommonDir, 'refs', 'heads', branch));
  const sha = text?.trim() ?? null;
  return sha !== null && SHA.test(sha) ? sha : null;
}

/**
 * The object a full ref name (`refs/…`) points at, read as git would from the files backend:
 * the loose file, else packed-refs. Null when neither has it; undefined when only git can tell
 * (a reftable repository, a loose file that holds no sha).
 */
export async function refOnDisk(
  repo: RepoLocation,
  ref: string,
): Promise<string | null | undefined> {
  if (!ref.startsWith('refs/')) return undefined;
  if ((await readOrNull(join(repo.gitCommonDir, 'reftable', 'tables.list'))) !== null) {
    return undefined;
  }
  const loose = await readOrNull(join(repo.gitCommonDir, ref));
  if (loose !== null) {
    const sha = loose.trim();
    return SHA.test(sha) ? sha : undefined;
  }
  const packed = packedRefs(await readOrNull(join(repo.gitCommonDir, 'packed-refs')));
  return packed === undefined ? undefined : (packed.get(ref) ?? null);
}

/**
 * Full ref name → object, for each of `names` that exists and every ref under each of
 * `prefixes` (`refs/…/`), as git's files backend keeps them: the loose files first, then
 * packed-refs for what they do not hold — a ref git packs or deletes meanwhile is still seen at
 * its one value or another, never lost (a loose file wins over packed-refs, as in git).
 * Undefined when only git can tell (a reftable repository, a loose file that holds no sha, a
 * symbolic ref, something not a file where a ref is): the caller asks git (`for-each-ref`).
 */
export async function refsOnDisk(
  commonDir: string,
  names: readonly string[],
  prefixes: readonly string[],
): Promise<Map<string, string> | undefined> {
  if ((await readOrNull(join(commonDir, 'reftable', 'tables.list'))) !== null) return undefined;
  const loose = [...names];
  for (const prefix of prefixes) {
    const found = await looseUnder(commonDir, prefix);
    if (found === undefined) return undefined;
    loose.push(...found);
  }
  const refs = new Map<string, string>();
  for (const name of loose) {
    if (!name.startsWith('refs/') || name.endsWith('.lock')) continue;
    const text = await readOrNull(join(commonDir, name));
    if (text === null) continue;
    const sha = text.trim();
    if (!SHA.test(sha)) return undefined;
    refs.set(name, sha);
  }
  const packed = packedRefs(await readOrNull(join(commonDir, 'packed-refs')));
  if (packed === undefined) return undefined;
  for (const [name, sha] of packed) {
    if (refs.has(name)) continue;
    if (names.includes(name) || prefixes.some((p) => name.startsWith(p))) refs.set(name, sha);
  }
  return refs;
}

/** packed-refs' `<sha> <ref>` lines (peeled `^` lines and comments skipped); undefined: unreadable. */
function packedRefs(text: string | null): Map<string, string> | undefined {
  const refs = new Map<string, string>();
  for (const line of (text ?? '').split('\n')) {
    if (line === '' || line.startsWith('#') || line.startsWith('^')) continue;
    const space = line.indexOf(' ');
    const sha = line.slice(0, space);
    if (space === -1 || !SHA.test(sha)) return undefined;
    refs.set(line.slice(space + 1), sha);
  }
  return refs;
}

/** The loose ref files under a prefix, by full name (folders walked); undefined: unreadable. */
async function looseUnder(commonDir: string, prefix: string): Promise<string[] | undefined> {
  const names: string[] = [];
  const walk = async (ref: string): Promise<boolean> => {
    let entries;
    try {
      entries = await readdir(join(commonDir, ref), { withFileTypes: true });
    } catch (error) {
      return missing(error);
    }
    for (const entry of entries) {
      const name = `${ref}${entry.name}`;
      if (entry.isDirectory()) {
        if (!(await walk(`${name}/`))) return false;
      } else if (entry.isFile()) names.push(name);
      else return false;
    }
    return true;
  };
  return (await walk(prefix.endsWith('/') ? prefix : `${prefix}/`)) ? names : undefined;
}

/** The branch HEAD names (`ref: refs/heads/<branch>`); null when detached or unreadable. */
export async function headBranchOnDisk(repo: RepoLocation): Promise<string | null> {
  const text = await readOrNull(join(repo.gitDir, 'HEAD'));
  const match = /^ref: refs\/heads\/(.+)\n?$/.exec(text ?? '');
  return match?.[1] ?? null;
}

/** HEAD's commit when HEAD names a branch with a loose ref; null when that takes git to tell. */
export async function headCommitOnDisk(repo: RepoLocation): Promise<string | null> {
  const branch = await headBranchOnDisk(repo);
  return branch === null ? null : looseBranchSha(repo, branch);
}

/**
 * What HEAD, the branch, the index, HEAD's reflog, packed-refs and a reftable's list of tables
 * are on disk. Two equal prints
 * taken around an attempt mean no git command moved HEAD or the branch or wrote the index in
 * between: git rewrites HEAD, refs, the index and packed-refs through a lock file renamed into
 * place (a new inode), and appends to the reflog (a new size). HEAD and the ref are compared by
 * their bytes, so even an edit in place by hand is seen.
 */
export interface GitDirPrint {
  readonly files: string;
}

export async function gitDirPrint(repo: RepoLocation, branch: string): Promise<GitDirPrint> {
  const parts = await Promise.all([
    readOrNull(join(repo.gitDir, 'HEAD')),
    readOrNull(join(repo.gitCommonDir, 'refs', 'heads', branch)),
    statPrint(join(repo.gitDir, 'index')),
    statPrint(join(repo.gitDir, 'logs', 'HEAD')),
    statPrint(join(repo.gitCommonDir, 'packed-refs')),
    // A reftable repository keeps refs and reflogs in tables listed here (rewritten at every
    // update), the worktree's own (HEAD) beside its git dir.
    readOrNull(join(repo.gitCommonDir, 'reftable', 'tables.list')),
    readOrNull(join(repo.gitDir, 'reftable', 'tables.list')),
  ]);
  return { files: JSON.stringify(parts) };
}

export function samePrint(a: GitDirPrint | null, b: GitDirPrint | null): boolean {
  return a !== null && b !== null && a.files === b.files;
}

async function statPrint(path: string): Promise<string | null> {
  try {
    const s = await stat(path, { bigint: true });
    return `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}:${s.ctimeNs}`;
  } catch (error) {
    if (missing(error)) return null;
    throw error;
  }
}

async function readOrNull(path: string): Promise<string | null> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    // A folder where a file was (a reftable repository's refs/heads is a file; a branch
    // `a` where `a/b` is asked) is as good as absent: the caller asks git.
    if (missing(error) || errnoCode(error) === 'EISDIR') return null;
    throw error;
  }
}

function missing(error: unknown): boolean {
  const code = errnoCode(error);
  return code === 'ENOENT' || code === 'ENOTDIR';
}
