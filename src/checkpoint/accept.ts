import { commitEverything } from '../git/commit.js';
import { git } from '../git/git.js';
import { endBisect, quitOperations } from '../git/operations.js';
import { commitSummary, headPosition } from '../git/repo.js';
import type { RunGit } from './run-git.js';
import { undoBranchSwitch } from './branch-switch.js';
import { isClean } from '../git/status.js';
import { leaveIgnoredOutOfIndex, leftOutNotice } from './leave-out.js';
import { detachNestedRepos, nestedNotice } from './nested-repos.js';
import type { Protection } from './repo-guard.js';
import { tasksFilesCommitted } from './ignored-tasks.js';
import { stoppedTracking, untrack } from './stopped-tracking.js';

/** Subject of the commit that records a completed story. */
export function checkpointMessage(storyId: string): string {
  return `checkpoint: ${storyId}`;
}

/**
 * Commits the whole work tree as one commit on top of the checkpoint, on the run's branch:
 * commits the agent made itself are folded in, so the branch keeps one commit per story.
 * With `resuming`, a commit this function already made before an interruption is reused.
 * With `untouched` (no git command moved HEAD or the branch or wrote the index since the
 * attempt began at the checkpoint: on-disk.ts, `gitDirPrint`), HEAD, the branch and the index
 * are known to be at the checkpoint and are neither read nor put back.
 */
export async function commitStory(
  g: RunGit,
  checkpoint: string,
  storyId: string,
  protect: Protection,
  how: { resuming: boolean; untouched: boolean },
): Promise<string> {
  const { ctx, repo } = g;
  const message = checkpointMessage(storyId);
  let stopped: string[] = [];
  if (how.untouched) {
    // Half-done merges and rebases would turn the checkpoint into a merge commit or a mess
    // (a MERGE_HEAD written by hand moves no HEAD).
    await quitOperations(ctx, repo.gitDir);
  } else {
    const back = await backToCheckpoint(g, checkpoint, storyId, how.resuming);
    if (typeof back === 'string') {
      tasksFilesCommitted(g, null);
      return back;
    }
    stopped = back.stoppedTracking;
  }
  // Repositories the attempt created are committed as plain files, never as gitlinks.
  const { detached: nested } = await detachNestedRepos(g, protect.label);
  if (nested.length > 0) {
    const saved = `${g.paths.dir}/nested/${protect.label}/`;
    protect.notices.push(nestedNotice(nested, saved, 'committed their files as plain files'));
  }
  // Files ignored when the run started stay out even when the attempt un-ignored them.
  const sha = await commitEverything(
    ctx,
    message,
    async (listing) => {
      tasksFilesCommitted(g, listing);
      await untrack(g, stopped);
      // The index was at the checkpoint before `add -A` (reset there, or never touched).
      const left = await leaveIgnoredOutOfIndex(g, protect.guard, checkpoint, listing);
      if (left.length > 0) protect.notices.push(leftOutNotice(left, 'the checkpoint'));
    },
    repo,
  );
  await endBisect(ctx, repo.gitDir);
  return sha;
}

/**
 * HEAD on the run's branch at the checkpoint and the index at the checkpoint, the files as
 * the agent left them (but for what only a branch switch of the agent changed). Resuming an
 * accept whose commit was made already, returns that commit and changes nothing; else the
 * files the attempt stopped tracking (read from its index before the reset).
 */
async function backToCheckpoint(
  g: RunGit,
  checkpoint: string,
  storyId: string,
  resuming: boolean,
): Promise<string | { stoppedTracking: string[] }> {
  const { ctx, repo } = g;
  const message = checkpointMessage(storyId);
  const head = await headPosition(ctx);
  const onBranch = head.kind !== 'detached' && head.name === g.branch;
  if (resuming && head.kind === 'branch' && onBranch && head.sha !== checkpoint) {
    const summary = await commitSummary(ctx, head.sha);
    const ours = summary.subject === message && summary.parents.join(' ') === checkpoint;
    if (ours && (await isClean(ctx))) return head.sha;
  }

  // Half-done merges and rebases would turn the checkpoint into a merge commit or a mess.
  await quitOperations(ctx, repo.gitDir);
  const stopped = await stoppedTracking(g, checkpoint);
  // Files that only a branch switch of the agent changed get the checkpoint's version back.
  await undoBranchSwitch(g, checkpoint);
  if (!onBranch) {
    await git(ctx, ['symbolic-ref', '-m', 'ralphtool: accept', 'HEAD', `refs/heads/${g.branch}`]);
  }
  // Points the branch (and so HEAD) at the checkpoint, leaving the files as the agent left them.
  await git(ctx, [
    'update-ref',
    '-m',
    `ralphtool: accept ${storyId}`,
    `refs/heads/${g.branch}`,
    checkpoint,
  ]);
  // The index back to the checkpoint, then `add -A` from the files: what the agent staged or
  // committed is taken from the work tree, except ignored files it force-added (`.env`,
  // `node_modules/`), which must never end up in a checkpoint.
  await git(ctx, ['reset', '-q', '--mixed', checkpoint, '--'], {
    context: 'could not reset the index',
  });
  return { stoppedTracking: stopped };
}
