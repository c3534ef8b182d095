import { existsSync } from 'node:fs';
import {
  cp,
  lstat,
  mkdir,
  readdir,
  readFile,
  rename,
  rm,
  rmdir,
  writeFile,
} from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { errnoCode } from '../core/error-details.js';
import { shellWord } from '../core/shell-word.js';
import { git } from '../git/git.js';
import type { RunGit } from './run-git.js';

/**
 * Git takes ignored files for expendable: a checkout writes over (or deletes) an ignored file
 * at a path the target commit tracks. The cleanup checks out the original branch, which still
 * tracks a file a story stopped tracking (`git rm --cached config.json`, then ignored): the
 * file on disk — the user's, or the one the story left — would be overwritten by the original's
 * version, then deleted by the squash of the story's deletion. So before the checkout such files
 * (anything on disk the run's branch does not track where the target does) are moved into the
 * run folder, and moved back once the work is home: same bytes, mode and times.
 *
 * A list is written before the first move, so a cleanup interrupted anywhere after it brings
 * them back when it is resumed (`bringShelteredBack` reads the list, not the trees).
 */
export async function shelterUntrackedFiles(g: RunGit, tip: string, target: string): Promise<void> {
  const dir = shelterDir(g);
  if (existsSync(listFile(g))) return; // sheltered before an interruption: moved already
  const paths = await inTheWay(g, tip, target);
  if (paths.length === 0) return;
  await mkdir(dir, { recursive: true });
  await writeFile(listFile(g), `${JSON.stringify(paths)}\n`);
  for (const [i, path] of paths.entries()) {
    await moveFile(join(g.repo.root, path), join(dir, `${String(i)}.file`));
  }
}

/**
 * Puts the sheltered files back where they were (each whose path is free again; one that is
 * not stays in the run folder and is named). Returns the notice for the user, or null when
 * nothing was sheltered.
 */
export async function bringShelteredBack(g: RunGit): Promise<string | null> {
  let paths: string[];
  try {
    paths = JSON.parse(await readFile(listFile(g), 'utf8')) as string[];
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null;
    throw error;
  }
  const dir = shelterDir(g);
  const stuck: string[] = [];
  for (const [i, path] of paths.entries()) {
    const from = join(dir, `${String(i)}.file`);
    if (!existsSync(from)) continue; // moved back before an interruption
    const to = join(g.repo.root, path);
    // The squash may leave an empty folder where the original branch had files under the path.
    if ((await lstat(to).catch(() => null))?.isDirectory()) await rmdir(to).catch(() => undefined);
    if ((await lstat(to).catch(() => null)) !== null) {
      stuck.push(`${path} (${from})`);
      continue;
    }
    await mkdir(dirname(to), { recursive: true });
    await moveFile(from, to);
  }
  if (stuck.length > 0) {
    return `files that were on disk where ${g.branch} tracks nothing and your branch tracks a file could not go back, something is there now: ${stuck.join(', ')}`;
  }
  const shown = paths.map((path) => `\`${path}\``).join(', ');
  return `${shown}: ${g.branch} stopped tracking ${paths.length === 1 ? 'this path' : 'these paths'} and your files there were kept as they were (git shows them as changes to tracked files); \`git rm --cached -- ${paths.map(shellWord).join(' ')}\` stops tracking them as the run did`;
}

/**
 * Once every sheltered file is back, the shelter and its list go: a later cleanup must not take
 * an old list for its own. Kept separate from `bringShelteredBack` so that bringing them back,
 * run again after a crash, still says what it did.
 */
export async function forgetShelter(g: RunGit): Promise<void> {
  const left = await readdir(shelterDir(g)).catch(() => []);
  if (left.some((name) => name.endsWith('.file'))) return;
  await rm(shelterDir(g), { recursive: true, force: true });
}

function shelterDir(g: RunGit): string {
  return join(g.paths.dir, 'sheltered');
}

function listFile(g: RunGit): string {
  return join(shelterDir(g), 'list.json');
}

/**
 * The paths (files, links, or a folder where a file is tracked) on disk that `target` tracks
 * and `tip` does not: the checkout from `tip` to `target` would write over them. Where a file is
 * on disk at a folder the target's path goes through (`a` for `a/b`), `a` is in the way.
 */
async function inTheWay(g: RunGit, tip: string, target: string): Promise<string[]> {
  const out = await git(g.ctx, [
    'diff-tree',
    '-r',
    '-z',
    '--no-renames',
    '--name-only',
    '--diff-filter=A',
    tip,
    target,
  ]);
  const found = new Set<string>();
  for (const path of out.stdout.split('\0').filter((p) => p !== '')) {
    const parts = path.split('/');
    for (let n = 1; n <= parts.length; n += 1) {
      const prefix = parts.slice(0, n).join('/');
      const stats = await lstat(join(g.repo.root, prefix)).catch(() => null);
      if (stats === null) break;
      if (n < parts.length && stats.isDirectory()) continue;
      if (n === parts.length || !(await tracked(g, tip, prefix))) found.add(prefix);
      break;
    }
  }
  return [...found];
}

async function tracked(g: RunGit, tip: string, path: string): Promise<boolean> {
  const out = await git(g.ctx, ['cat-file', '-e', `${tip}:${path}`], { allowFailure: true });
  return out.exitCode === 0;
}

/** A rename; across file systems (a git directory elsewhere), a copy keeping mode and times. */
async function moveFile(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    if (errnoCode(error) !== 'EXDEV') throw error;
    await cp(from, to, { recursive: true, preserveTimestamps: true, verbatimSymlinks: true });
    await rm(from, { recursive: true, force: true });
  }
}
