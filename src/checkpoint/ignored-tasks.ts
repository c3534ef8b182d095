import { randomBytes } from 'node:crypto';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { commitTree } from '../git/commit.js';
import { git, gitOut } from '../git/git.js';
import { ignoredUntracked } from '../git/status.js';
import { tasksPathspec } from './paths.js';
import type { RunGit } from './run-git.js';
import type { AddListing } from '../git/snapshot.js';
import { errnoCode } from '../core/error-details.js';
import { writeFileWhole } from './whole-file.js';

/**
 * A change's tasks.md that the repository ignores (`openspec/` in .gitignore or
 * .git/info/exclude, say) is in no checkpoint: `git reset --hard` and `git clean` never bring it
 * back, so the ticks of a failed attempt would survive its revert and make the story look done.
 * Its bytes at each checkpoint are therefore kept in the run folder (`ignored-tasks/<sha>.json`)
 * and written back by every revert; what the attempt had made of it is saved under the
 * attempt's ref first. A tracked tasks.md needs none of this: git reverts it.
 */

/** Repository-relative path → the file's bytes (base64) at a checkpoint. */
type Manifest = Record<string, string>;

/**
 * The change's tasks.md files that are ignored and untracked, anywhere in the work tree. The
 * first search of a run looks everywhere (a glob: git walks every folder, `node_modules/`
 * too) and notes every tasks.md of the change it finds, tracked or ignored; later searches
 * look at those paths only (literal pathspecs, no walk), and only at those not tracked at the
 * checkpoint: the usual tracked tasks.md then costs no git process at all. A tasks.md the
 * agent creates elsewhere later is not the one the run reads.
 */
async function ignoredTasksFiles(g: RunGit): Promise<string[]> {
  const memo = g.tasksFiles;
  const known = memo?.paths ?? null;
  if (memo && known !== null) {
    const untracked = known.filter((path) => !memo.tracked.has(path));
    if (untracked.length === 0) return [];
    const found = await ignoredUntracked(g.ctx, {
      pathspec: untracked.map((path) => `:(literal)${path}`),
    });
    return found.filter((file) => untracked.includes(file));
  }
  const glob = tasksPathspec(g.change);
  const found = (await ignoredUntracked(g.ctx, { pathspec: [glob] }))
    // An ignored nested repository is listed whatever the pathspec says.
    .filter((file) => file.endsWith('/tasks.md'));
  if (memo) {
    const tracked = await git(g.ctx, ['ls-files', '-z', '--', glob]);
    const paths = tracked.stdout.split('\0').filter((path) => path.endsWith('/tasks.md'));
    memo.paths = [...new Set([...paths, ...found])];
    memo.tracked = new Set(paths);
  }
  return found;
}

/**
 * An accept committed what `add -A` listed onto an index at the old checkpoint (`null`: not
 * known, e.g. the commit was made before a crash): a tasks.md the commit removed is tracked
 * no longer (the agent deleted it; an ignored one written later must be searched for). Called
 * before the accept's `rememberIgnoredTasks`.
 */
export function tasksFilesCommitted(g: RunGit, listing: AddListing | null): void {
  const memo = g.tasksFiles;
  if (!memo) return;
  if (listing === null) {
    memo.tracked.clear();
    return;
  }
  for (const path of listing.removed) memo.tracked.delete(path);
}

function manifestFile(g: RunGit, checkpoint: string): string {
  return join(g.paths.dir, 'ignored-tasks', `${checkpoint}.json`);
}

async function readManifest(g: RunGit, checkpoint: string): Promise<Manifest | null> {
  try {
    return JSON.parse(await readFile(manifestFile(g, checkpoint), 'utf8')) as Manifest;
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null;
    throw error;
  }
}

/**
 * Records the bytes of the ignored tasks.md files as they are now, as those of `checkpoint`.
 * Without `replace`, a record that exists is kept: the first one is the checkpoint's. A
 * checkpoint without any has no record (readers take a missing one as empty).
 */
export async function rememberIgnoredTasks(
  g: RunGit,
  checkpoint: string,
  replace: boolean,
): Promise<void> {
  if (!replace && (await readManifest(g, checkpoint)) !== null) return;
  const manifest: Manifest = {};
  for (const file of await ignoredTasksFiles(g)) {
    manifest[file] = (await readFile(join(g.repo.root, file))).toString('base64');
  }
  // No ignored tasks.md (the usual case): no record, which every reader takes as an empty one
  // — a durable write per story saved. One an earlier run wrote for this checkpoint goes.
  if (Object.keys(manifest).length === 0) {
    if (replace) await rm(manifestFile(g, checkpoint), { force: true });
    return;
  }
  // Written whole: a crash leaves the old record or the new one.
  await writeFileWhole(manifestFile(g, checkpoint), JSON.stringify(manifest));
}

/** The recorded ignored tasks.md files whose bytes differ from the checkpoint's now. */
export async function changedIgnoredTasks(g: RunGit, checkpoint: string): Promise<string[]> {
  const manifest = (await readManifest(g, checkpoint)) ?? {};
  const changed: string[] = [];
  for (const [file, bytes] of Object.entries(manifest)) {
    const now = await readOrNull(join(g.repo.root, file));
    if (now === null || !now.equals(Buffer.from(bytes, 'base64'))) changed.push(file);
  }
  return changed;
}

/**
 * Puts the ignored tasks.md files back to their bytes at `checkpoint`, after adding what the
 * attempt had made of them to the commit `ref` points at (so no byte of the agent is lost).
 */
export async function restoreIgnoredTasks(
  g: RunGit,
  checkpoint: string,
  ref: string,
): Promise<void> {
  const changed = await changedIgnoredTasks(g, checkpoint);
  if (changed.length === 0) return;
  await saveIntoRef(g, ref, changed);
  const manifest = (await readManifest(g, checkpoint)) ?? {};
  for (const file of changed) {
    const full = join(g.repo.root, file);
    await mkdir(dirname(full), { recursive: true });
    await writeFile(full, Buffer.from(manifest[file] ?? '', 'base64'));
  }
}

/** Adds the files (as they are in the work tree; deleted ones left out) to the ref's commit. */
async function saveIntoRef(g: RunGit, ref: string, files: readonly string[]): Promise<void> {
  const { ctx } = g;
  const saved = await gitOut(ctx, ['rev-parse', '--verify', `${ref}^{commit}`]);
  const index = join(g.paths.dir, `tasks-index-${process.pid}-${randomBytes(4).toString('hex')}`);
  const env = { GIT_INDEX_FILE: index };
  try {
    await git(ctx, ['read-tree', saved], { env });
    for (const file of files) {
      if ((await readOrNull(join(g.repo.root, file))) === null) continue;
      const blob = await gitOut(ctx, ['hash-object', '-w', '--', file]);
      await git(ctx, ['update-index', '--add', '--cacheinfo', `100644,${blob},${file}`], { env });
    }
    const tree = await gitOut(ctx, ['write-tree'], { env });
    if (tree === (await gitOut(ctx, ['rev-parse', `${saved}^{tree}`]))) return;
    const message = `ralphtool: the ignored tasks.md of ${ref}`;
    const sha = await commitTree(ctx, tree, [saved], message);
    await git(ctx, ['update-ref', '-m', 'ralphtool: save ignored tasks.md', ref, sha], {
      context: 'could not save the attempt',
    });
  } finally {
    await rm(index, { force: true });
  }
}

async function readOrNull(file: string): Promise<Buffer | null> {
  try {
    return await readFile(file);
  } catch (error) {
    if (errnoCode(error) === 'ENOENT') return null;
    throw error;
  }
}
