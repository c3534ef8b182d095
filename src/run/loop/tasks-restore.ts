import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { RuntimeError } from '../../core/errors.js';
import { messageOf } from '../../core/error-details.js';
import { readOptionalText } from '../../openspec/read-text.js';
import { restoreOutside } from '../../openspec/tasks-scope.js';
import type { TasksAfter } from './attempt.js';
import type { LoopDeps, LoopSetup } from '../loop-types.js';

function tasksFile(setup: LoopSetup): string {
  return path.join(setup.repoRoot, setup.paths.tasks);
}

/** tasks.md's text now; null when it is missing or cannot be read (the judge reports that). */
export async function readTasksText(setup: LoopSetup): Promise<string | null> {
  try {
    return await readOptionalText(tasksFile(setup), setup.paths.tasks);
  } catch {
    return null;
  }
}

/**
 * An accepted attempt that edited other stories in tasks.md (docs/contract.md, "An attempt works
 * on its own story"): its work tree is saved under its attempt ref as the agent left it, then
 * tasks.md is written back with every other story as the checkpoint had it, so that each story is
 * judged by its own attempt. Returns the ref. A crash in between leaves an attempt that the next
 * `resume` reverts (saving it again), as any interrupted attempt.
 */
export async function restoreOtherStories(
  setup: LoopSetup,
  deps: LoopDeps,
  storyId: string,
  attempt: number,
  tasks: TasksAfter,
): Promise<string> {
  const savedRef = await deps.run.saveAttempt(storyId, attempt);
  try {
    await writeFile(tasksFile(setup), restoreOutside(tasks.before, tasks.after, storyId));
  } catch (error) {
    throw new RuntimeError(`cannot write ${setup.paths.tasks}: ${messageOf(error)}`);
  }
  return savedRef;
}
