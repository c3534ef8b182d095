import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { git } from './git.js';
import type { GitContext } from './git.js';

export type TreeDiffApplied = { applied: true } | { applied: false; reason: string };

/**
 * Writes into the work tree of `ctx` the difference between two trees, with `git apply` and no
 * `--index`: the index is neither read nor written, and the patch applies whole or not at all
 * (a file that is not as in `from` makes it apply nothing; the first line of git's complaint is
 * the reason). The patch goes from git to a file in `scratchDir` to git, so bytes that are no
 * valid text stay exact; plumbing `diff-tree` ignores the user's diff settings (external diff
 * programs, prefixes, renames).
 */
export async function applyTreeDifference(
  ctx: GitContext,
  req: { from: string; to: string; scratchDir: string },
): Promise<TreeDiffApplied> {
  const tag = `${String(process.pid)}-${randomBytes(4).toString('hex')}`;
  const patch = join(req.scratchDir, `apply-${tag}.patch`);
  try {
    await git(
      ctx,
      [
        'diff-tree',
        '-r',
        '-p',
        '--binary',
        '--full-index',
        '--no-renames',
        `--output=${patch}`,
        req.from,
        req.to,
      ],
      { context: 'could not compute the changes to write' },
    );
    // --whitespace=nowarn: the user's apply.whitespace=error must not refuse the run's lines.
    const result = await git(ctx, ['apply', '--whitespace=nowarn', patch], { allowFailure: true });
    if (result.exitCode === 0) return { applied: true };
    return { applied: false, reason: result.stderr.trim().split('\n')[0] ?? '' };
  } finally {
    await rm(patch, { force: true });
  }
}
