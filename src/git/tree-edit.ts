import { randomBytes } from 'node:crypto';
import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { git, gitOut } from './git.js';
import type { GitContext } from './git.js';

/**
 * `tree` with the file at `path` (relative to the tree's root) holding `text`, as a new tree
 * object: through a temporary index in `scratchDir` (`read-tree`, a blob from `hash-object -w
 * --stdin`, `update-index --cacheinfo`, `write-tree`). No work tree, index or ref is touched.
 */
export async function treeWithFile(
  ctx: GitContext,
  tree: string,
  path: string,
  text: string,
  scratchDir: string,
): Promise<string> {
  await mkdir(scratchDir, { recursive: true });
  const indexFile = join(scratchDir, `edit-index-${process.pid}-${randomBytes(4).toString('hex')}`);
  const env = { GIT_INDEX_FILE: indexFile };
  const context = `could not write ${path}`;
  try {
    await git(ctx, ['read-tree', tree], { env, context });
    const blob = await gitOut(ctx, ['hash-object', '-w', '--no-filters', '--stdin'], {
      input: text,
      context,
    });
    await git(ctx, ['update-index', '--add', '--cacheinfo', `100644,${blob},${path}`], {
      env,
      context,
    });
    return await gitOut(ctx, ['write-tree'], { env, context });
  } finally {
    await rm(indexFile, { force: true });
  }
}

/** `git reset -q --hard <commit>`: HEAD's branch, the index and the tracked files at `commit`. */
export async function resetHard(ctx: GitContext, commit: string, context: string): Promise<void> {
  await git(ctx, ['reset', '-q', '--hard', commit], { context });
}
