import { git, type GitContext } from './git.js';

/** One file of a diffstat: lines added and removed, null for a binary file. */
export interface DiffstatFile {
  path: string;
  added: number | null;
  removed: number | null;
}

/** git's empty tree: what an unborn branch's run started from. */
const EMPTY_TREE = '4b825dc642cb6eb9a060e54bf8d69288fbee4904';

/**
 * The files that differ between two commits, each with its lines added and removed
 * (`git diff --numstat`, renames followed); `from` null is the empty tree.
 */
export async function diffstat(
  ctx: GitContext,
  from: string | null,
  to: string,
): Promise<DiffstatFile[]> {
  const out = (
    await git(ctx, ['diff', '--numstat', '-z', '-M', from ?? EMPTY_TREE, to, '--'], {
      env: { GIT_OPTIONAL_LOCKS: '0' },
    })
  ).stdout;
  return parseNumstatZ(out);
}

/**
 * `--numstat -z`: `added\tremoved\tpath\0`, or for a rename `added\tremoved\t\0from\0to\0`;
 * `-` counts for a binary file.
 */
export function parseNumstatZ(out: string): DiffstatFile[] {
  const parts = out.split('\0');
  const files: DiffstatFile[] = [];
  for (let i = 0; i < parts.length; i++) {
    const head = parts[i] ?? '';
    if (head === '') continue;
    const [added = '-', removed = '-', path = ''] = head.split('\t');
    let name = path;
    if (path === '') {
      const to = parts[i + 2] ?? '';
      name = `${parts[i + 1] ?? ''} → ${to}`;
      i += 2;
    }
    files.push({ path: name, added: count(added), removed: count(removed) });
  }
  return files;
}

function count(text: string): number | null {
  return text === '-' ? null : Number(text);
}

/** The whole diff between two commits as text (no colour, no external diff tool); `from` null is the empty tree. */
export async function diffText(ctx: GitContext, from: string | null, to: string): Promise<string> {
  return (
    await git(ctx, ['diff', '--no-color', '--no-ext-diff', '-M', from ?? EMPTY_TREE, to, '--'], {
      env: { GIT_OPTIONAL_LOCKS: '0' },
    })
  ).stdout;
}
