import { GitError } from './git-error.js';
import { git } from './git.js';
import type { GitContext } from './git.js';

/** What a three-way merge of two commits gives, computed without touching a work tree or index. */
export type MergeTreeResult =
  | { clean: true; tree: string }
  | {
      clean: false;
      /** The tree with conflict markers, as git leaves it. */
      tree: string;
      /** The paths git could not merge, each once. */
      files: string[];
    };

/**
 * `git merge-tree --write-tree` (git 2.38+): merges `ours` and `theirs` (commits; their merge
 * base is found by git) into a tree object only. Writes objects, never refs, the index or files.
 */
export async function mergeTree(
  ctx: GitContext,
  ours: string,
  theirs: string,
): Promise<MergeTreeResult> {
  const args = ['merge-tree', '--write-tree', '-z', '--name-only', '--no-messages', ours, theirs];
  const result = await git(ctx, args, { allowFailure: true });
  const [tree = '', ...rest] = result.stdout.split('\0');
  // 0: clean; 1: conflicts, with the tree first. Git also exits 1 when it could not merge at
  // all (a name that is no commit), then with no tree.
  if ((result.exitCode !== 0 && result.exitCode !== 1) || !/^[0-9a-f]{40,64}$/.test(tree)) {
    throw new GitError(
      {
        args,
        exitCode: result.exitCode,
        signal: null,
        timedOut: false,
        aborted: false,
        stderr: result.stderr,
        timeoutMs: ctx.timeoutMs,
      },
      'could not merge the branches in memory',
    );
  }
  if (result.exitCode === 0) return { clean: true, tree };
  const files = [...new Set(rest.filter((name) => name !== ''))];
  return { clean: false, tree, files };
}
