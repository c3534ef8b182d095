import type { TasksEdit } from './events.js';

const WORDS: Record<TasksEdit['kind'], string> = {
  ticked: 'ticked',
  unticked: 'un-ticked',
  edited: 'reworded',
  removed: 'removed',
  added: 'added',
  'story-removed': 'removed story',
  'story-renamed': 'renamed story',
  'story-added': 'added story',
};

/** Ids shown per kind before the rest is only counted. */
const MAX_IDS = 8;

/**
 * "ticked 2.1, 2.2; removed story 4": the edits of an `tasks.out-of-scope` event (or of a
 * `tasks-edited` failure) in one line, grouped by kind in a fixed order.
 */
export function describeTasksEdits(edits: readonly TasksEdit[]): string {
  const parts: string[] = [];
  for (const kind of Object.keys(WORDS) as TasksEdit['kind'][]) {
    const ids = edits.filter((e) => e.kind === kind).map((e) => e.taskId ?? e.storyId);
    if (ids.length === 0) continue;
    const shown = ids.slice(0, MAX_IDS).join(', ');
    const more = ids.length > MAX_IDS ? ` and ${ids.length - MAX_IDS} more` : '';
    parts.push(`${WORDS[kind]} ${shown}${more}`);
  }
  return parts.join('; ');
}
