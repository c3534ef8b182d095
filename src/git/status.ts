import { existsSync } from 'node:fs';
import { access, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { git } from './git.js';
import type { GitContext } from './git.js';
import { headPosition, type HeadPosition } from './repo.js';

/** A multi-step git operation that stopped half-way and waits for the user. */
export type GitOperation = 'merge' | 'rebase' | 'am' | 'cherry-pick' | 'revert' | 'bisect';

/** Files git leaves in the (per-worktree) git directory while an operation is in progress. */
const MARKERS: readonly { file: string; operation: GitOperation }[] = [
  { file: 'rebase-apply/applying', operation: 'am' },
  { file: 'rebase-merge', operation: 'rebase' },
  { file: 'rebase-apply', operation: 'rebase' },
  { file: 'MERGE_HEAD', operation: 'merge' },
  { file: 'CHERRY_PICK_HEAD', operation: 'cherry-pick' },
  { file: 'REVERT_HEAD', operation: 'revert' },
  { file: 'sequencer/todo', operation: 'cherry-pick' },
  { file: 'BISECT_LOG', operation: 'bisect' },
];

/** Every operation in progress, most disruptive first; empty when there is none. */
export async function operationsInProgress(gitDir: string): Promise<GitOperation[]> {
  // One listing of the git directory instead of a look per marker (asked twice a story): a
  // marker whose first part is not there is not looked for. Unreadable: every one is.
  const names = await readdir(gitDir).then(
    (entries) => new Set(entries),
    () => null,
  );
  const found: GitOperation[] = [];
  for (const { file, operation } of MARKERS) {
    // `git am` keeps its state in rebase-apply/ as well; it is one operation, not two.
    if (found.includes(operation) || (operation === 'rebase' && found.includes('am'))) continue;
    const [first = file, ...rest] = file.split('/');
    if (names !== null && !names.has(first)) continue;
    if ((names !== null && rest.length === 0) || (await exists(join(gitDir, file)))) {
      found.push(operation);
    }
  }
  return found;
}

export async function operationInProgress(gitDir: string): Promise<GitOperation | null> {
  return (await operationsInProgress(gitDir))[0] ?? null;
}

export interface StatusEntry {
  /** The two-letter porcelain code, e.g. ` M`, `??`, `R `. */
  code: string;
  path: string;
  /** For renames and copies: where the file came from. */
  from?: string;
}

/**
 * Changed, staged and untracked (not ignored) files of the whole work tree.
 * `readOnly` keeps git from refreshing the index, for looking while someone else works.
 */
export async function statusEntries(
  ctx: GitContext,
  opts: { readOnly?: boolean; submodules?: 'none' | 'dirty' } = {},
): Promise<StatusEntry[]> {
  const result = await git(
    ctx,
    [
      'status',
      '--porcelain=v1',
      '-z',
      '--untracked-files=all',
      `--ignore-submodules=${opts.submodules ?? 'none'}`,
    ],
    opts.readOnly ? { env: { GIT_OPTIONAL_LOCKS: '0' } } : {},
  );
  return parsePorcelainZ(result.stdout);
}

/**
 * Whether the work tree is at its commit. Changes inside a submodule's own work tree do not
 * count: ralphtool never reverts inside submodules (they are other repositories), so counting
 * them would make every check "repair" what it cannot touch. A submodule moved to another
 * commit does count.
 */
export async function isClean(
  ctx: GitContext,
  opts: { readOnly?: boolean } = {},
): Promise<boolean> {
  return (await statusEntries(ctx, { ...opts, submodules: 'dirty' })).length === 0;
}

/**
 * Where HEAD is and whether the work tree is clean (as `isClean` counts it), from one
 * `git status`: this is checked before every attempt, and three git processes (symbolic-ref,
 * rev-parse, status) become one. Falls back to `headPosition` when git does not name the
 * branch (a symbolic HEAD outside refs/heads).
 */
export async function headAndCleanliness(
  ctx: GitContext,
): Promise<{ head: HeadPosition; clean: boolean }> {
  const result = await git(ctx, [
    'status',
    '--porcelain=v2',
    '--branch',
    '-z',
    '--untracked-files=all',
    '--ignore-submodules=dirty',
  ]);
  let oid: string | null = null;
  let branch: string | null = null;
  let clean = true;
  for (const entry of result.stdout.split('\0')) {
    if (entry === '') continue;
    if (entry.startsWith('# branch.oid ')) oid = entry.slice('# branch.oid '.length);
    else if (entry.startsWith('# branch.head ')) branch = entry.slice('# branch.head '.length);
    else if (!entry.startsWith('# ')) clean = false;
  }
  const head = headFromStatus(oid, branch) ?? (await headPosition(ctx));
  return { head, clean };
}

function headFromStatus(oid: string | null, branch: string | null): HeadPosition | null {
  if (oid === null || branch === null || branch === '(unknown)') return null;
  if (branch === '(detached)') return oid === '(initial)' ? null : { kind: 'detached', sha: oid };
  return oid === '(initial)'
    ? { kind: 'unborn', name: branch }
    : { kind: 'branch', name: branch, sha: oid };
}

/** Parses `status --porcelain=v1 -z`: `XY path\0`, renames and copies followed by `from\0`. */
export function parsePorcelainZ(output: string): StatusEntry[] {
  const fields = output.split('\0');
  const entries: StatusEntry[] = [];
  for (let i = 0; i < fields.length; i++) {
    const field = fields[i];
    if (!field) continue;
    const code = field.slice(0, 2);
    const entry: StatusEntry = { code, path: field.slice(3) };
    if (code.includes('R') || code.includes('C')) {
      i++;
      entry.from = fields[i] ?? '';
    }
    entries.push(entry);
  }
  return entries;
}

async function exists(path: string): Promise<boolean> {
  try {
    await access(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * Submodules whose own work tree has changes (tracked or untracked). ralphtool never reverts
 * inside a submodule, so these are reported instead. Cheap when there is no `.gitmodules`.
 */
export async function dirtySubmodules(ctx: GitContext, root: string): Promise<string[]> {
  if (!existsSync(join(root, '.gitmodules'))) return [];
  const result = await git(ctx, [
    'status',
    '--porcelain=v2',
    '-z',
    '--untracked-files=no',
    '--ignore-submodules=none',
  ]);
  const dirty: string[] = [];
  for (const entry of result.stdout.split('\0')) {
    // `1 XY SCMU mH mI mW hH hI path`: the 3rd field says S(ubmodule), C(ommit), M(odified), U(ntracked).
    if (!entry.startsWith('1 ') && !entry.startsWith('2 ')) continue;
    const fields = entry.split(' ');
    const sub = fields[2] ?? '';
    if (sub.startsWith('S') && (sub[2] === 'M' || sub[3] === 'U')) {
      dirty.push(fields.slice(entry.startsWith('1 ') ? 8 : 9).join(' '));
    }
  }
  return dirty;
}

/**
 * Untracked files git ignores now (`ls-files --others --ignored --exclude-standard`), below
 * `pathspec` when given; `folders` names an ignored folder once (`node_modules/`). Git also
 * lists an ignored nested repository (`vendor/lib/`) whatever the pathspec says.
 */
export async function ignoredUntracked(
  ctx: GitContext,
  opts: { folders?: boolean; pathspec?: string[] } = {},
): Promise<string[]> {
  const args = ['ls-files', '-z', '--others', '--ignored', '--exclude-standard'];
  if (opts.folders) args.push('--directory');
  if (opts.pathspec) args.push('--', ...opts.pathspec);
  const out = await git(ctx, args);
  return out.stdout.split('\0').filter((path) => path !== '');
}
