import type { LoopView } from './loop-view.js';

/** Read-only questions the screens ask of the loop view. Pure. */
export type StoryStatus = 'done' | 'current' | 'failed' | 'pending';

/** How a story shows in the strip: failed covers both "retry pending" and exhausted. */
export function storyStatus(view: LoopView, storyId: string): StoryStatus {
  const story = view.summary.stories.find((s) => s.id === storyId);
  if (!story) return 'pending';
  if (story.result === 'done') return 'done';
  if (story.result === 'exhausted' || story.result === 'failed') return 'failed';
  const last = view.details[storyId]?.attempts.at(-1);
  if (story.result === 'running' && last?.status === 'running') return 'current';
  return 'pending';
}

export function storiesDone(view: LoopView): number {
  return view.summary.stories.filter((s) => s.result === 'done').length;
}

/** Time since the run started: frozen once it awaits the choice or has finished. */
export function elapsedMs(view: LoopView, now: number): number {
  if (!view.started) return 0;
  const end = view.awaiting?.at ?? view.finished?.at ?? now;
  return Math.max(0, end - view.started.at);
}
