// Git access and byte-for-byte snapshots for the soak, in plain JS so that the bench script
// can use them without a TypeScript runner. A snapshot entry carries git's own object id, so a
// work tree and a commit's tree compare directly.
import { Buffer } from 'node:buffer';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import process from 'node:process';

/** The environment without anything that would point git at another repository. */
export function cleanGitEnv(extra = {}) {
  const env = { ...process.env, ...extra };
  for (const key of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY']) {
    delete env[key];
  }
  return env;
}

/** Runs git in `dir` and returns stdout as text. */
export function git(dir, ...args) {
  return execFileSync('git', args, {
    cwd: dir,
    env: cleanGitEnv(),
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 * 1024 * 1024,
  });
}

/** Runs git and reports whether it exited 0 (for `--quiet` / `--verify` questions). */
export function gitSucceeds(dir, ...args) {
  try {
    execFileSync('git', args, { cwd: dir, env: cleanGitEnv(), stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

/** The object id git gives these bytes as a blob (sha1 repositories). */
export function blobId(bytes) {
  const data = typeof bytes === 'string' ? Buffer.from(bytes) : bytes;
  return createHash('sha1').update(`blob ${data.length}\0`).update(data).digest('hex');
}

/**
 * Every file and symlink under `root` except `.git`, as git would record it: mode (100644,
 * 100755, 120000), object id and bytes.
 * @returns {Map<string, {mode: string, oid: string, content: Buffer}>}
 */
export function snapshotTree(root) {
  const out = new Map();
  const walk = (rel) => {
    for (const name of readdirSync(path.join(root, rel)).sort()) {
      const child = rel === '' ? name : `${rel}/${name}`;
      if (child === '.git') continue;
      const full = path.join(root, child);
      const stat = lstatSync(full);
      if (stat.isDirectory()) walk(child);
      else if (stat.isSymbolicLink()) {
        const content = Buffer.from(readlinkSync(full));
        out.set(child, { mode: '120000', oid: blobId(content), content });
      } else {
        const content = readFileSync(full);
        const mode = (stat.mode & 0o100) !== 0 ? '100755' : '100644';
        out.set(child, { mode, oid: blobId(content), content });
      }
    }
  };
  walk('');
  return out;
}

/**
 * The files of a commit (or tree) with their modes and object ids.
 * @returns {Map<string, {mode: string, oid: string}>}
 */
export function treeEntries(dir, rev) {
  const out = new Map();
  for (const record of git(dir, 'ls-tree', '-r', '-z', rev).split('\0')) {
    if (record === '') continue;
    const tab = record.indexOf('\t');
    const [mode, , oid] = record.slice(0, tab).split(' ');
    out.set(record.slice(tab + 1), { mode, oid });
  }
  return out;
}

/**
 * How `actual` differs from `expected` (modes and object ids), one readable line each;
 * empty when they hold the same files with the same bytes and modes.
 */
export function diffEntries(expected, actual, label) {
  const lines = [];
  for (const [file, want] of expected) {
    const got = actual.get(file);
    if (!got) lines.push(`${label}: ${file} is missing`);
    else if (got.oid !== want.oid) lines.push(`${label}: ${file} has other content`);
    else if (got.mode !== want.mode)
      lines.push(`${label}: ${file} has mode ${got.mode}, not ${want.mode}`);
  }
  for (const file of actual.keys()) {
    if (!expected.has(file)) lines.push(`${label}: unexpected ${file}`);
  }
  return lines;
}
