import { randomBytes } from 'node:crypto';
import { rm } from 'node:fs/promises';
import { join } from 'node:path';
import { commitTree } from '../git/commit.js';
import { git, gitOut } from '../git/git.js';
import { headPosition } from '../git/repo.js';
import { changedIgnoredTasks, rememberIgnoredTasks } from './ignored-tasks.js';
import { tasksPathspec } from './paths.js';
import type { RunGit } from './run-git.js';

/** Subject of the commit that takes the user's own edits of tasks.md into the run. */
export const USER_TASKS_MESSAGE = 'tasks.md: edited by you between runs';

/**
 * Between two invocations of a run no agent runs, so a tasks.md of the change that differs from
 * the checkpoint was edited by the user (a task added, a story reworded, a box ticked by hand).
 * Such edits are the user's plan, never an attempt's work: a commit of their own on the run's
 * branch (`USER_TASKS_MESSAGE`, on top of the checkpoint) takes the tracked ones in, and the
 * record of an ignored tasks.md takes its new bytes, before any repair could save them away.
 * Only with HEAD on the run's branch at its checkpoint (anything else is a repair's business).
 * Returns the new checkpoint (the same one when only an ignored tasks.md changed) and the
 * paths taken, or null when there is nothing of the user's.
 */
export async function takeUserTasksEdits(
  g: RunGit,
  checkpoint: string,
): Promise<{ sha: string; paths: string[] } | null> {
  const { ctx } = g;
  const head = await headPosition(ctx);
  if (head.kind !== 'branch' || head.name !== g.branch || head.sha !== checkpoint) return null;
  const glob = tasksPathspec(g.change);
  const diff = await git(ctx, [
    'diff',
    '-z',
    '--no-renames',
    '--name-only',
    '--diff-filter=M',
    checkpoint,
    '--',
    glob,
  ]);
  const tracked = diff.stdout.split('\0').filter((path) => path.endsWith('tasks.md'));
  const ignored = await changedIgnoredTasks(g, checkpoint);
  if (tracked.length === 0 && ignored.length === 0) return null;
  let sha = checkpoint;
  if (tracked.length > 0) {
    sha = await commitOnTop(g, checkpoint, tracked);
    await git(
      ctx,
      ['update-ref', '-m', 'ralphtool: your tasks.md', `refs/heads/${g.branch}`, sha, checkpoint],
      {
        context: `could not take your edits of tasks.md into ${g.branch}`,
      },
    );
    // The real index follows HEAD for those files (the rest of it is the checkpoint's).
    await git(ctx, ['reset', '-q', sha, '--', ...tracked.map((path) => `:(literal)${path}`)]);
  }
  await rememberIgnoredTasks(g, sha, true);
  return { sha, paths: [...tracked, ...ignored] };
}

/** The checkpoint's tree with these files as they are now (through git's filters, as `add`). */
async function commitOnTop(
  g: RunGit,
  checkpoint: string,
  paths: readonly string[],
): Promise<string> {
  const { ctx } = g;
  const index = join(g.paths.dir, `tasks-edit-${process.pid}-${randomBytes(4).toString('hex')}`);
  const env = { GIT_INDEX_FILE: index };
  try {
    await git(ctx, ['read-tree', checkpoint], { env });
    await git(ctx, ['add', '--', ...paths.map((path) => `:(literal)${path}`)], { env });
    const tree = await gitOut(ctx, ['write-tree'], { env });
    return await commitTree(ctx, tree, [checkpoint], USER_TASKS_MESSAGE);
  } finally {
    await rm(index, { force: true });
  }
}
