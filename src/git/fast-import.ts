import { fallbackIdentityConfig } from './commit.js';
import { gitOut, type GitContext } from './git.js';

// One commit written by one `git fast-import` (blobs, trees, the commit and its ref in one
// process, instead of hash-object, mktree per folder, commit-tree and update-ref): the remote's
// record is written before every push (remote/record.ts). Objects already written by an
// earlier import of the same process are named by their id, not sent again.

/** A file of the commit's tree: its bytes, or the id of a blob the repository already holds. */
export type ImportFile = { path: string; data: Uint8Array } | { path: string; blob: string };

export interface ImportCommit {
  /** The ref the commit goes on; it moves only forward (from `parent`, or created). */
  ref: string;
  /** The commit the ref is at now (the new commit's parent); null: the ref does not exist. */
  parent: string | null;
  message: string;
  /** The whole tree (every file, 100644): nothing of the parent's tree is kept. */
  files: readonly ImportFile[];
  /** "Name <email>", as `committerIdent` says it. */
  committer: string;
}

/**
 * Writes the commit and moves the ref to it (refused, nothing moved, when the ref is not at
 * `parent` any more). Returns the commit and the id of each file given by its bytes, in order
 * (the others: their id as given).
 */
export async function importCommit(
  ctx: GitContext,
  commit: ImportCommit,
  context: string,
): Promise<{ commit: string; blobs: string[] }> {
  const parts: (string | Uint8Array)[] = ['feature done\n'];
  const marks: number[] = [];
  commit.files.forEach((file, i) => {
    if (!('data' in file)) return;
    const mark = i + 1;
    marks.push(mark);
    parts.push(`blob\nmark :${mark}\ndata ${file.data.byteLength}\n`, file.data, '\n');
  });
  const commitMark = commit.files.length + 1;
  const message = Buffer.from(commit.message);
  parts.push(
    `commit ${commit.ref}\nmark :${commitMark}\ncommitter ${commit.committer} now\n`,
    `data ${message.byteLength}\n`,
    message,
    '\n',
    ...(commit.parent === null ? [] : [`from ${commit.parent}\n`]),
    'deleteall\n',
    ...commit.files.map(
      (file, i) => `M 100644 ${'data' in file ? `:${i + 1}` : file.blob} ${quotePath(file.path)}\n`,
    ),
    '\n',
    ...[commitMark, ...marks].map((mark) => `get-mark :${mark}\n`),
    'done\n',
  );
  const out = await gitOut(ctx, ['fast-import', '--quiet', '--done', '--date-format=now'], {
    input: Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p) : p))),
    context,
  });
  const [sha = '', ...written] = out.split('\n');
  const byMark = new Map(marks.map((mark, i) => [mark, written[i] ?? '']));
  return {
    commit: sha,
    blobs: commit.files.map((file, i) => ('data' in file ? (byMark.get(i + 1) ?? '') : file.blob)),
  };
}

/**
 * "Name <email>" of whoever commits in this repository, as git decides it (its environment
 * variables, then the config, then ralphtool's fallback), for `importCommit`.
 */
export async function committerIdent(ctx: GitContext): Promise<string> {
  const identity = await fallbackIdentityConfig(ctx);
  const ident = await gitOut(ctx, ['var', 'GIT_COMMITTER_IDENT'], { config: identity });
  // "Name <email> <seconds> <zone>": the date is fast-import's `now`.
  return ident.slice(0, ident.lastIndexOf('>') + 1);
}

/**
 * A path as fast-import reads it: as it is, or C-quoted (every byte past ASCII as an octal escape)
 * when it holds what would be misread.
 */
function quotePath(path: string): string {
  if (/^[A-Za-z0-9._/+-][A-Za-z0-9._/+ @,=-]*$/.test(path) && !path.endsWith(' ')) return path;
  let quoted = '"';
  for (const byte of Buffer.from(path)) {
    if (byte === 0x22 || byte === 0x5c) quoted += `\\${String.fromCharCode(byte)}`;
    else if (byte < 0x20 || byte >= 0x7f) quoted += `\\${byte.toString(8).padStart(3, '0')}`;
    else quoted += String.fromCharCode(byte);
  }
  return `${quoted}"`;
}
