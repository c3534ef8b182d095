import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { RunPaths } from '../checkpoint/index.js';
import { redact, type Secret } from '../core/redact.js';
import type { ImportFile } from '../git/fast-import.js';

// The files of a run's record (record.ts), gathered in memory: the state and `record.json` as
// given, the learnings and the most recent prompts as the run folder holds them, each through
// the redactor. A file read for an earlier record of this process and not changed since is
// named by the blob written then instead of being read and sent to git again.

/** How many prompts the record keeps (the most recent), and how much of each. */
export const RECORD_PROMPTS = { count: 20, maxBytes: 64 * 1024 } as const;

/** What one process remembers between its records. */
export interface RecordMemo {
  /** "Name <email>" of the record commits; null until looked up. */
  committer: string | null;
  /** A file as it was read (path, size, times, inode, the secrets) → the blob written of it. */
  blobs: Map<string, string>;
  /** The clock a file's age is told by (epoch ms). */
  now: () => number;
}

export function newRecordMemo(now: () => number = Date.now): RecordMemo {
  return { committer: null, blobs: new Map(), now };
}

/**
 * A file changed this recently is read again next time even when its size and times look the
 * same: a file system's clock may not tick between two writes (git's "racy" files).
 */
const SETTLED_MS = 2_000;

export interface GatheredFiles {
  files: ImportFile[];
  /** After the import: the blobs written, in the order of `files`, remembered for next time. */
  remember: (blobs: readonly string[]) => void;
}

/**
 * The record's files: `given` (name → text) first, then `learnings.md` and `prompts/<name>` from
 * the run folder. Every text goes through the redactor when there are secrets.
 */
export async function gatherRecordFiles(
  paths: RunPaths,
  given: readonly { name: string; text: string }[],
  learningsName: string,
  promptsFolder: string,
  secrets: readonly Secret[],
  memo: RecordMemo,
): Promise<GatheredFiles> {
  const clean = (text: string): string => (secrets.length === 0 ? text : redact(text, secrets));
  const files: ImportFile[] = given.map((g) => ({
    path: g.name,
    data: Buffer.from(clean(g.text)),
  }));
  const onDisk = [
    ...(existsSync(paths.learnings)
      ? [{ name: learningsName, file: paths.learnings, prompt: false }]
      : []),
    ...(await recentPrompts(paths.promptsDir)).map((p) => ({
      name: `${promptsFolder}/${p.name}`,
      file: p.file,
      prompt: true,
    })),
  ];
  const secretsKey =
    secrets.length === 0 ? '' : createHash('sha256').update(JSON.stringify(secrets)).digest('hex');
  const keys: (string | null)[] = given.map(() => null);
  const readAt = memo.now();
  for (const { name, file, prompt } of onDisk) {
    const info = await stat(file).catch(() => null);
    if (info === null) continue;
    const key = [file, info.size, info.mtimeMs, info.ctimeMs, info.ino, secretsKey].join('\0');
    const known = memo.blobs.get(key);
    if (known !== undefined) {
      files.push({ path: name, blob: known });
      keys.push(null);
      continue;
    }
    const bytes = await readFile(file).catch(() => null);
    if (bytes === null) continue;
    const body = prompt ? capped(bytes) : bytes;
    const data = secrets.length === 0 ? body : Buffer.from(clean(body.toString('utf8')));
    files.push({ path: name, data });
    const settled = Math.max(info.mtimeMs, info.ctimeMs) < readAt - SETTLED_MS;
    keys.push(settled ? key : null);
  }
  return {
    files,
    remember: (blobs) => {
      keys.forEach((key, i) => {
        const blob = blobs[i];
        if (key !== null && blob !== undefined && blob !== '') memo.blobs.set(key, blob);
      });
    },
  };
}

/** A prompt's bytes; past the cap, its head and a line saying so. */
function capped(bytes: Buffer): Buffer {
  if (bytes.byteLength <= RECORD_PROMPTS.maxBytes) return bytes;
  return Buffer.concat([
    bytes.subarray(0, RECORD_PROMPTS.maxBytes),
    Buffer.from(
      `\n\n[cut: ${bytes.byteLength} bytes, the record keeps ${RECORD_PROMPTS.maxBytes}]\n`,
    ),
  ]);
}

/** The most recent prompt files (by modification time), in name order. */
async function recentPrompts(dir: string): Promise<{ name: string; file: string }[]> {
  const names = existsSync(dir) ? (await readdir(dir)).filter((n) => n.endsWith('.md')) : [];
  const dated = await Promise.all(
    names.map(async (name) => {
      const info = await stat(join(dir, name)).catch(() => null);
      return { name, file: join(dir, name), mtime: info?.mtimeMs ?? 0 };
    }),
  );
  dated.sort((a, b) => b.mtime - a.mtime || a.name.localeCompare(b.name));
  const kept = dated.slice(0, RECORD_PROMPTS.count);
  kept.sort((a, b) => a.name.localeCompare(b.name));
  return kept;
}
