import type { EnsureResult } from '../checkpoint/index.js';

/**
 * What `resume` or `finish` tells the user after putting the work tree back at the run's
 * checkpoint. When the user had gone back to a branch of their own, say so: the changes found
 * there were theirs as much as the agent's, and now live under a ref, not in their files.
 */
export function repairNotice(repair: EnsureResult, runBranch: string): string | null {
  if (!repair.repaired) return null;
  const saved = repair.savedRef ?? 'an attempt ref';
  if (repair.fromBranch !== null) {
    return `you were on ${repair.fromBranch}, not ${runBranch}: went back to ${runBranch} at its last checkpoint; the commits of ${repair.fromBranch} are untouched, and the changes that were in the work tree are saved as ${saved} (\`git show --stat ${saved}\`)`;
  }
  return `reverted the interrupted attempt to the last checkpoint; its work is saved as ${saved}`;
}
