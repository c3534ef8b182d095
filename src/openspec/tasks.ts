import type { Story, Task } from '../core/change.js';
import { FenceTracker, parseHeading, stripBom, type Heading } from './markdown-lines.js';
import { parseTaskLine } from './task-line.js';

/** Title of the story holding the tasks written before the first heading. */
export const LEADING_STORY_TITLE = 'Tasks';

/** `1`, `2.1` at the start of a heading. */
const STORY_NUMBER = /^\d+(?:\.\d+)*/;
/** `1.1`, `2.3.1`, `3.6a` at the start of a task. */
const TASK_NUMBER = /^\d+(?:\.\d+)+[a-z]?/;

interface HeadingAt extends Heading {
  line: number;
}

interface TaskAt {
  line: number;
  indent: number;
  done: boolean;
  /** The task's own leading `N.M` token, if it has one. */
  token: string | null;
  /** Description without that token. */
  text: string;
}

interface Group {
  heading: HeadingAt | null;
  tasks: TaskAt[];
}

/**
 * Reads the stories of a tasks.md (docs/contract.md, "Reading tasks.md"). Pure and linear
 * in the size of the input. Every line OpenSpec counts as a task lands in exactly
 * one story, so our counts always equal `openspec list`'s.
 */
export function parseTasks(content: string): Story[] {
  const { headings, tasks } = scanLines(content);
  const groups = groupTasks(headings, tasks);
  return toStories(groups);
}

/**
 * One pass over the lines. Split on '\n' only, as OpenSpec does: a lone '\r' is
 * not a line break there, so it must not be one here either.
 */
function scanLines(content: string): { headings: HeadingAt[]; tasks: TaskAt[] } {
  const lines = stripBom(content).split('\n');
  const fences = new FenceTracker();
  const headings: HeadingAt[] = [];
  const tasks: TaskAt[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    const fenced = fences.inFence(line);
    // OpenSpec counts task lines inside code fences too; only headings are masked.
    const task = parseTaskLine(line);
    if (task !== null) {
      const numbered = splitLeadingNumber(task.description, TASK_NUMBER);
      tasks.push({
        line: i + 1,
        indent: task.indent,
        done: task.done,
        token: numbered?.number ?? null,
        text: numbered?.rest || task.description,
      });
      continue;
    }
    if (fenced) continue;
    const heading = parseHeading(line);
    if (heading !== null) headings.push({ level: heading.level, text: heading.text, line: i + 1 });
  }
  return { headings, tasks };
}

/**
 * The story level is the level of the closest heading above the first task that
 * has a heading above it; headings at that level or shallower open a group,
 * deeper ones are sub-sections of the current group.
 */
function groupTasks(headings: readonly HeadingAt[], tasks: readonly TaskAt[]): Group[] {
  const level = storyLevel(headings, tasks);
  const groups: Group[] = [{ heading: null, tasks: [] }];
  let h = 0;
  for (const task of tasks) {
    for (; h < headings.length && (headings[h]?.line ?? 0) < task.line; h++) {
      const heading = headings[h];
      if (heading !== undefined && heading.level <= level) groups.push({ heading, tasks: [] });
    }
    groups[groups.length - 1]?.tasks.push(task);
  }
  return groups.filter((group) => group.tasks.length > 0);
}

function storyLevel(headings: readonly HeadingAt[], tasks: readonly TaskAt[]): number {
  const first = headings[0];
  if (first === undefined) return 0;
  const task = tasks.find((t) => t.line > first.line);
  if (task === undefined) return 0;
  let closest = first;
  for (const heading of headings) {
    if (heading.line > task.line) break;
    closest = heading;
  }
  return closest.level;
}

function toStories(groups: readonly Group[]): Story[] {
  const usedStoryIds = new Set<string>();
  const takenTaskIds = lazyExplicitTaskIds(groups);
  const stories: Story[] = [];
  let position = 0;
  for (const group of groups) {
    let id: string;
    let title: string;
    if (group.heading === null) {
      id = '0';
      title = LEADING_STORY_TITLE;
    } else {
      position++;
      const numbered = splitLeadingNumber(group.heading.text, STORY_NUMBER);
      id = uniqueStoryId(numbered?.number ?? null, position, usedStoryIds);
      title = numbered?.rest || group.heading.text || `Story ${id}`;
    }
    usedStoryIds.add(id);
    const tasks = toTasks(id, group.tasks, takenTaskIds);
    stories.push({
      id,
      title,
      line: group.heading?.line ?? 0,
      tasks,
      done: tasks.every((task) => task.done),
    });
  }
  return stories;
}

/**
 * The ids of all numbered tasks, built only when a task without a number needs
 * one: most files number every task and never pay for the set.
 */
function lazyExplicitTaskIds(groups: readonly Group[]): () => Set<string> {
  let ids: Set<string> | null = null;
  return () => {
    if (ids === null) {
      ids = new Set();
      for (const group of groups) {
        for (const task of group.tasks) if (task.token !== null) ids.add(task.token);
      }
    }
    return ids;
  };
}

/** The heading's own number when free, else its position; a later clash never steals an id. */
function uniqueStoryId(number: string | null, position: number, used: ReadonlySet<string>): string {
  if (number !== null && !used.has(number)) return number;
  const byPosition = String(position);
  if (!used.has(byPosition)) return byPosition;
  for (let k = 2; ; k++) {
    const candidate = `${byPosition}-${k}`;
    if (!used.has(candidate)) return candidate;
  }
}

/**
 * A task keeps its own `N.M` token. One without gets `<story>.<n>`, n being its
 * position in the story, moved up past any id another task already carries, so
 * an unnumbered sub-task under `2.1` never shadows the real `2.2`.
 */
function toTasks(storyId: string, lines: readonly TaskAt[], takenIds: () => Set<string>): Task[] {
  const openIndents: number[] = [];
  // Only grows, so skipping taken ids stays linear over the whole story.
  let lastImplicit = 0;
  return lines.map((line, index) => {
    while (openIndents.length > 0 && (openIndents[openIndents.length - 1] ?? 0) >= line.indent) {
      openIndents.pop();
    }
    const depth = openIndents.length;
    openIndents.push(line.indent);
    let id = line.token;
    if (id === null) {
      const taken = takenIds();
      let n = Math.max(index + 1, lastImplicit + 1);
      while (taken.has(`${storyId}.${n}`)) n++;
      lastImplicit = n;
      id = `${storyId}.${n}`;
      taken.add(id);
    }
    return { id, description: line.text, done: line.done, line: line.line, depth };
  });
}

/**
 * Splits `1. Setup`, `1) Setup`, `2.1: Setup`, `1.1 Add` into number and rest.
 * The number must end at a word boundary, so `1.5x faster` has none.
 */
function splitLeadingNumber(text: string, number: RegExp): { number: string; rest: string } | null {
  const match = number.exec(text);
  if (match === null) return null;
  const value = match[0];
  const next = text.charAt(value.length);
  if (next !== '' && !/[\s.):]/.test(next)) return null;
  const afterPunctuation = /[.):]/.test(next) ? value.length + 1 : value.length;
  return { number: value, rest: text.slice(afterPunctuation).trim() };
}
