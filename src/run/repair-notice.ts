import type { EnsureResult } from '../checkpoint/index.js';

/**
 * What `resume` or `finish` tells the user after putting the work tree back at the run's
 * checkpoint. When the user had gone back to a branch of their own, say so: the changes found
 * there were theirs as much as the agent's, and now live under a ref, not in their files.
 */
export function repairNotice(repair: EnsureResult, runBranch: string): string | null {
  if (!repair.repaired) return null;
  const saved = repair.savedRef ?? 'an attempt ref';
  const commits = keptCommitsNote(repair.keptCommits, runBranch);
  if (repair.fromBranch !== null) {
    return `you were on ${repair.fromBranch}, not ${runBranch}: went back to ${runBranch} at its last checkpoint; the commits of ${repair.fromBranch} are untouched, and the changes that were in the work tree are saved as ${saved} (\`git show --stat ${saved}\`)${commits}`;
  }
  return `reverted the interrupted attempt to the last checkpoint; its work is saved as ${saved}${commits}`;
}

/** Commits someone made on the run's branch past its checkpoint: named, and where they are kept. */
function keptCommitsNote(kept: EnsureResult['keptCommits'], runBranch: string): string {
  if (kept === null) return '';
  const named = kept.commits.map((line) => `"${line}"`).join(', ');
  return `; the commits made on ${runBranch} past its checkpoint (${named}) are kept as ${kept.ref} (\`git log ${kept.ref}\`; \`git cherry-pick <sha>\` brings one back)`;
}

/** The user's own edits of tasks.md, taken into the run before it goes on or ends. */
export function userTasksNotice(paths: readonly string[], runBranch: string): string | null {
  if (paths.length === 0) return null;
  return `your edits of ${paths.join(', ')} since the run stopped are part of the run now (a commit of their own on ${runBranch}), not an attempt to revert`;
}
