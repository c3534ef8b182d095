import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Story } from '../../core/change.js';
import { errnoCode } from '../../core/error-details.js';
import {
  appendResolveStory,
  hasConflictMarkers,
  RESOLVE_STORY_TITLE,
  resolveStoryId,
} from '../../core/resolve-story.js';
import type { RunOutcome } from '../../core/events.js';
import type { LoopDeps, LoopSetup } from '../loop-types.js';
import { readTasksText } from './tasks-restore.js';

/**
 * `--resolve-conflicts` (docs/contract.md, "Bringing a colliding change home"): a cleanup that
 * collided with the user's work tree becomes one more story. Whether it may: the flag, a run in
 * a worktree of its own that pushes nowhere, and every story done (a stopped or exhausted run is
 * not carried on).
 */
export function mayResolve(setup: LoopSetup, deps: LoopDeps, outcome: RunOutcome): boolean {
  // Never with --push: H, the user's work tree as a commit, would go to the remote with T.
  return (
    setup.options.resolveConflicts &&
    outcome === 'complete' &&
    deps.run.state.home !== undefined &&
    deps.run.state.home !== null &&
    (deps.run.state.remote?.push ?? null) === null
  );
}

/**
 * The branch moved onto the user's work tree with the conflicts in its files, and the story
 * appended to tasks.md (checkpoint/resolve-home.ts); `resolve.started` says it. False when
 * nothing collides any more (the user's files changed since): the cleanup can run again.
 */
export async function startResolve(
  setup: LoopSetup,
  deps: LoopDeps,
  stories: readonly Story[],
): Promise<boolean> {
  const storyId = resolveStoryId(stories.map((s) => s.id));
  const against = `your work tree (${deps.run.originalLabel})`;
  const record = await deps.run.resolveOntoHome({
    storyId,
    tasksPath: setup.paths.tasks,
    tasksText: async (files) =>
      appendResolveStory((await readTasksText(setup)) ?? '', storyId, files, against),
  });
  if (record === null) return false;
  deps.emit({
    type: 'resolve.started',
    storyId,
    title: RESOLVE_STORY_TITLE,
    files: [...record.files],
  });
  return true;
}

/** Why the resolve story was not done, for `resolve.dropped` and the summary. */
export function droppedReason(deps: LoopDeps, storyId: string, outcome: RunOutcome): string {
  const p = deps.run.progressOf(storyId);
  const last = p.lastFailure ? ` (last: ${p.lastFailure.kind})` : '';
  if (outcome === 'max-retries') return `its ${String(p.attempts)} attempts failed${last}`;
  return `the run ended ${outcome}${last}`;
}

/** The attempt's gate of the resolve story: the colliding files that still hold a marker. */
export function markersGateOf(
  deps: LoopDeps,
  setup: LoopSetup,
  storyId: string,
): { markersLeft?: () => Promise<string[]> } {
  const resolve = deps.run.state.resolve ?? null;
  if (resolve === null || resolve.storyId !== storyId) return {};
  return { markersLeft: () => filesWithMarkers(setup.repoRoot, resolve.files) };
}

async function filesWithMarkers(root: string, files: readonly string[]): Promise<string[]> {
  const left: string[] = [];
  for (const file of files) {
    let text: string;
    try {
      text = await readFile(path.join(root, file), 'utf8');
    } catch (error) {
      // A file the resolution deletes holds no marker.
      if (errnoCode(error) === 'ENOENT' || errnoCode(error) === 'EISDIR') continue;
      throw error;
    }
    if (hasConflictMarkers(text)) left.push(file);
  }
  return left;
}
