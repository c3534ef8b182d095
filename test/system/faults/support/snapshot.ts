import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';

/** One path of a work tree as a user would care about it: kind, executable bit and bytes. */
export interface FileEntry {
  kind: 'file' | 'symlink' | 'dir';
  executable: boolean;
  size: number;
  /** sha256 of the bytes (files) or of the link target (symlinks); '' for directories. */
  digest: string;
}

export type Snapshot = Map<string, FileEntry>;

/** Every path under `root` except `.git` (and any `skip` prefix), recorded byte for byte. */
export function snapshotTree(root: string, skip: readonly string[] = []): Snapshot {
  const out: Snapshot = new Map();
  const walk = (rel: string): void => {
    for (const name of readdirSync(path.join(root, rel))) {
      const child = rel === '' ? name : `${rel}/${name}`;
      if (child === '.git' || skip.some((s) => child === s || child.startsWith(`${s}/`))) continue;
      const entry = describe(path.join(root, child));
      out.set(child, entry);
      if (entry.kind === 'dir') walk(child);
    }
  };
  walk('');
  return out;
}

/** The given paths only (missing ones recorded as absent), for "these files must not change". */
export function snapshotPaths(
  root: string,
  paths: readonly string[],
): Map<string, FileEntry | null> {
  const out = new Map<string, FileEntry | null>();
  for (const rel of paths) {
    try {
      out.set(rel, describe(path.join(root, rel)));
    } catch {
      out.set(rel, null);
    }
  }
  return out;
}

function describe(full: string): FileEntry {
  const stat = lstatSync(full);
  if (stat.isSymbolicLink()) {
    const target = readlinkSync(full);
    return { kind: 'symlink', executable: false, size: target.length, digest: sha256(target) };
  }
  if (stat.isDirectory()) return { kind: 'dir', executable: false, size: 0, digest: '' };
  return {
    kind: 'file',
    executable: (stat.mode & 0o100) !== 0,
    size: stat.size,
    digest: sha256(readFileSync(full)),
  };
}

function sha256(data: string | Buffer): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * Differences between two snapshots as readable lines (empty when identical), so that a
 * failing `expect(diff).toEqual([])` says which file changed and how.
 */
export function diffSnapshots(
  before: ReadonlyMap<string, FileEntry | null>,
  after: ReadonlyMap<string, FileEntry | null>,
): string[] {
  const lines: string[] = [];
  for (const [file, was] of before) {
    const now = after.get(file) ?? null;
    if (was === null && now === null) continue;
    if (now === null) lines.push(`removed: ${file}`);
    else if (was === null) lines.push(`appeared: ${file}`);
    else if (was.kind !== now.kind) lines.push(`kind ${was.kind} -> ${now.kind}: ${file}`);
    else if (was.digest !== now.digest) lines.push(`content changed: ${file}`);
    else if (was.executable !== now.executable) lines.push(`mode changed: ${file}`);
  }
  for (const [file, now] of after) {
    if (!before.has(file) && now !== null) lines.push(`added: ${file}`);
  }
  return lines;
}
