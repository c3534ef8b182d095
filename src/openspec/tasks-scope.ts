import type { Story, Task } from '../core/change.js';
import type { TasksEdit } from '../core/events.js';
import { parseTasks } from './tasks.js';

/**
 * What an attempt did to tasks.md beyond its own story (docs/contract.md, "An attempt works on its
 * own story"), from the checkpoint's text and the attempt's. Pure.
 */
export interface TasksScope {
  /** Edits of other stories (their tasks, their headings, new stories): reported, never kept. */
  outside: TasksEdit[];
  /** Tasks of the attempt's own story removed or reworded: the attempt cannot be accepted. */
  ownBroken: TasksEdit[];
}

export function compareTasks(before: string, after: string, storyId: string): TasksScope {
  const was = parseTasks(before);
  const now = parseTasks(after);
  const outside: TasksEdit[] = [];
  const ownBroken: TasksEdit[] = [];
  for (const story of was) {
    const own = story.id === storyId;
    const later = now.find((s) => s.id === story.id);
    if (later === undefined) {
      (own ? ownBroken : outside).push({ kind: 'story-removed', storyId: story.id, taskId: null });
      continue;
    }
    // The heading is not the story's work either: a reworded title is restored like a task.
    if (later.title !== story.title) {
      outside.push({ kind: 'story-renamed', storyId: story.id, taskId: null });
    }
    for (const edit of taskEdits(story, later)) {
      if (!own) outside.push(edit);
      else if (edit.kind === 'removed' || edit.kind === 'edited') ownBroken.push(edit);
      // Its own ticks and un-ticks, and tasks it adds to its own story, are its work.
    }
  }
  for (const story of now) {
    if (!was.some((s) => s.id === story.id)) {
      outside.push({ kind: 'story-added', storyId: story.id, taskId: null });
    }
  }
  return { outside, ownBroken };
}

/**
 * Task-level differences of one story. Tasks are paired by id, in order (a file can repeat an
 * id), so a reworded task is `edited`, not removed and added.
 */
function taskEdits(before: Story, after: Story): TasksEdit[] {
  const edits: TasksEdit[] = [];
  const remaining = groupById(after.tasks);
  const edit = (kind: TasksEdit['kind'], taskId: string): void => {
    edits.push({ kind, storyId: before.id, taskId });
  };
  for (const task of before.tasks) {
    const match = remaining.get(task.id)?.shift();
    if (match === undefined) edit('removed', task.id);
    else if (match.description !== task.description) edit('edited', task.id);
    else if (match.done !== task.done) edit(match.done ? 'ticked' : 'unticked', task.id);
  }
  for (const [id, left] of remaining) for (const _ of left) edit('added', id);
  return edits;
}

function groupById(tasks: readonly Task[]): Map<string, Task[]> {
  const byId = new Map<string, Task[]>();
  for (const task of tasks) {
    const list = byId.get(task.id);
    if (list === undefined) byId.set(task.id, [task]);
    else list.push(task);
  }
  return byId;
}

/**
 * The tasks.md to commit for an attempt at `storyId` that edited other stories: the
 * checkpoint's text, with the attempt's own section (the lines under its heading, up to the
 * next story's) as the attempt left it. When the attempt's section cannot be cut out cleanly
 * (it took in another story's tasks, say by deleting a heading), only its own ticks are carried
 * over onto the checkpoint's text. Either way no other story differs from the checkpoint.
 */
export function restoreOutside(before: string, after: string, storyId: string): string {
  const spliced = spliceOwnSection(before, after, storyId);
  if (spliced !== null && compareTasks(before, spliced, storyId).outside.length === 0) {
    return spliced;
  }
  return carryOwnTicks(before, after, storyId);
}

function spliceOwnSection(before: string, after: string, storyId: string): string | null {
  const was = section(before, storyId);
  const now = section(after, storyId);
  if (was === null || now === null) return null;
  // Its section took in another story's tasks: they would then be in the file twice.
  const others = new Set(
    parseTasks(before)
      .filter((s) => s.id !== storyId)
      .flatMap((s) => s.tasks.map((t) => t.id)),
  );
  if (now.story.tasks.some((t) => others.has(t.id))) return null;
  const beforeLines = before.split('\n');
  const afterLines = after.split('\n');
  return [
    ...beforeLines.slice(0, was.start),
    ...afterLines.slice(now.start, now.end),
    ...beforeLines.slice(was.end),
  ].join('\n');
}

/** The 0-based line range under the story's heading, up to the next story's heading. */
function section(
  text: string,
  storyId: string,
): { story: Story; start: number; end: number } | null {
  const stories = parseTasks(text);
  const at = stories.findIndex((s) => s.id === storyId);
  const story = stories[at];
  if (story === undefined) return null;
  const next = stories[at + 1];
  // `line` is 1-based: the heading's index is line - 1, so its body starts at index `line`.
  return {
    story,
    start: story.line,
    end: next === undefined ? text.split('\n').length : next.line - 1,
  };
}

/** The checkpoint's text with the boxes of the story's tasks set as the attempt left them. */
function carryOwnTicks(before: string, after: string, storyId: string): string {
  const was = parseTasks(before).find((s) => s.id === storyId);
  const now = parseTasks(after).find((s) => s.id === storyId);
  if (was === undefined || now === undefined) return before;
  const lines = before.split('\n');
  const remaining = groupById(now.tasks);
  for (const task of was.tasks) {
    const match = remaining.get(task.id)?.shift();
    if (match === undefined || match.description !== task.description) continue;
    const index = task.line - 1;
    lines[index] = withBox(lines[index] ?? '', match.done);
  }
  return lines.join('\n');
}

/**
 * The task line with its box checked or cleared. A task line holds no `[` before its box (the
 * list marker is `-`, `*`, `+` or a number), so the first `[` opens it.
 */
function withBox(line: string, done: boolean): string {
  const open = line.indexOf('[');
  const close = line.indexOf(']', open + 1);
  if (open < 0 || close < 0) return line;
  return `${line.slice(0, open + 1)}${done ? 'x' : ' '}${line.slice(close)}`;
}
