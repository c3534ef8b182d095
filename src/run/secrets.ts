import { existsSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  allSecrets,
  dotenvSecretsOf,
  SECRET_NAME,
  secretsOf,
  type Secret,
} from '../core/redact.js';
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
