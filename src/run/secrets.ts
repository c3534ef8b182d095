import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  allSecrets,
  dotenvSecretsOf,
  SECRET_NAME,
  secretsOf,
  secretWrittenIn,
  type Secret,
} from '../core/redact.js';
import { changedFilesSince } from '../git/changed-files.js';
import type { GitContext } from '../git/git.js';
import { pathsChangedBy, pathsHolding } from '../git/grep.js';

/**
 * What ralphtool can see is secret here, for the one redactor (core/redact.ts): the
 * environment's secrets and the values of the dotenv files (`.env`, `.env.*`) in each of
 * `roots`. Those files are ignored and never committed, but an agent that read one may repeat a
 * value in its words, and the words go to a remote, a notification, a webhook.
 */
export async function secretsHere(
  env: NodeJS.ProcessEnv,
  roots: readonly string[],
): Promise<Secret[]> {
  const files = await Promise.all([...new Set(roots)].map(dotenvSecrets));
  return allSecrets(secretsOf(env), ...files);
}

/**
 * Where the dotenv files a run can see are: its work tree, and for a run in a worktree of its
 * own the user's work tree too (the files stay there).
 */
export function secretRootsOf(run: {
  repo: { root: string };
  state: { home?: { root: string } | undefined };
}): string[] {
  return [run.repo.root, ...(run.state.home ? [run.state.home.root] : [])];
}

/** `dir` and the folders above it up to the top of its work tree (the folder holding `.git`). */
export function workTreeFolders(dir: string): string[] {
  const folders: string[] = [];
  for (let at = dir; ; at = dirname(at)) {
    folders.push(at);
    if (existsSync(join(at, '.git')) || dirname(at) === at) return folders;
  }
}

async function dotenvSecrets(root: string): Promise<Secret[]> {
  const names = await readdir(root).catch(() => [] as string[]);
  const texts = await Promise.all(
    names
      .filter((n) => n === '.env' || n.startsWith('.env.'))
      .map(async (name) => ({
        name,
        text: await readFile(join(root, name), 'utf8').catch(() => ''),
      })),
  );
  return texts.flatMap(({ name, text }) => dotenvSecretsOf(text, name));
}

/**
 * The files of a commit (those it changed from its parent) that hold the value of a secret whose
 * name says secret: such a commit (an attempt's save, a progress save) never leaves the machine.
 */
export async function filesWithSecrets(
  ctx: GitContext,
  commit: string,
  secrets: readonly Secret[],
): Promise<string[]> {
  const needles = secrets.filter((s) => SECRET_NAME.test(s.name)).map((s) => s.value);
  if (needles.length === 0) return [];
  return pathsHolding(ctx, commit, await pathsChangedBy(ctx, commit), needles);
}

/** Files larger than this are not read (a build output, a data file): secrets live in small ones. */
const MAX_SCANNED_BYTES = 2 * 1024 * 1024;

/** Where an attempt wrote a secret: the file, and the name of the secret (never its value). */
export interface WrittenSecret {
  path: string;
  name: string;
}

/**
 * The first file added or changed since `checkpointSha` (every file for none: an unborn branch) (untracked ones too, ignored
 * ones never: they are never committed or pushed) that holds the value of a secret; null when
 * none does. Binary files (a NUL byte) and files past 2 MiB are not read.
 */
export async function findWrittenSecret(
  ctx: GitContext,
  checkpointSha: string | null,
  secrets: readonly Secret[],
): Promise<WrittenSecret | null> {
  if (secrets.length === 0) return null;
  const changed = await changedFilesSince(ctx, checkpointSha);
  for (const entry of changed) {
    if (entry.status === 'D') continue;
    const file = join(ctx.cwd, entry.path);
    const size = await stat(file).then(
      (s) => (s.isFile() ? s.size : -1),
      () => -1,
    );
    if (size < 0 || size > MAX_SCANNED_BYTES) continue;
    const bytes = await readFile(file).catch(() => null);
    if (bytes === null || bytes.includes(0)) continue;
    const found = secretWrittenIn(bytes.toString('utf8'), secrets);
    if (found !== null) return { path: entry.path, name: found.name };
  }
  return null;
}
