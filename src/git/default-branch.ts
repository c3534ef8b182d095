import { git, gitOut, type GitContext } from './git.js';
import { fetchRefs, remoteContext } from './remote.js';

// A remote's default branch, and a work tree brought onto its tip (a pull-mode worker starts
// every change from there). Verbs only: the caller decides when.

/**
 * The branch the remote's HEAD names (`git ls-remote --symref <remote> HEAD`); null when the
 * remote does not say (an empty repository, a server that hides it). Throws when unreachable.
 */
export async function remoteDefaultBranch(
  ctx: GitContext,
  remote: string,
): Promise<{ branch: string | null } | { error: string }> {
  const result = await git(
    remoteContext(ctx, ctx.timeoutMs),
    ['ls-remote', '--symref', '--', remote, 'HEAD'],
    { allowFailure: true },
  );
  if (result.exitCode !== 0) return { error: result.stderr.trim().split('\n')[0] ?? '' };
  const named = /^ref: refs\/heads\/(\S+)\tHEAD$/m.exec(result.stdout);
  return { branch: named?.[1] ?? null };
}

/** Fetches `branch` of the remote into `into` (a ref of ralphtool's own); returns its commit. */
export async function fetchBranch(
  ctx: GitContext,
  remote: string,
  branch: string,
  into: string,
): Promise<{ sha: string } | { error: string }> {
  const fetched = await fetchRefs(ctx, remote, [`+refs/heads/${branch}:${into}`]);
  if (!fetched.ok) return { error: fetched.error };
  return { sha: await gitOut(ctx, ['rev-parse', '--verify', `${into}^{commit}`]) };
}

/**
 * Puts the work tree on `branch` at `sha` when that is a fast-forward (or `branch` is new):
 * `git switch` then `git merge --ff-only`. Returns git's words when it is not (the branch has
 * commits of its own, the work tree has changes in the way).
 */
export async function switchAndFastForward(
  ctx: GitContext,
  branch: string,
  sha: string,
): Promise<string | null> {
  const exists =
    (
      await git(ctx, ['rev-parse', '-q', '--verify', `refs/heads/${branch}`], {
        allowFailure: true,
      })
    ).exitCode === 0;
  const switched = await git(
    ctx,
    exists ? ['switch', '--quiet', '--', branch] : ['switch', '--quiet', '-c', branch, sha],
    { allowFailure: true },
  );
  if (switched.exitCode !== 0) return firstLine(switched.stderr);
  const merged = await git(ctx, ['merge', '--ff-only', '--quiet', sha], { allowFailure: true });
  return merged.exitCode === 0 ? null : firstLine(merged.stderr);
}

function firstLine(text: string): string {
  return text.trim().split('\n')[0] ?? '';
}
