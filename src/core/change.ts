/** Domain types of an OpenSpec change, as ralphtool reads it. Pure data, no I/O. */

export interface Task {
  /** Leading `N.M` token of the line, else `<story>.<n>`. */
  id: string;
  description: string;
  done: boolean;
  /** 1-based line number in tasks.md. */
  line: number;
  /** Indentation depth: 0 for top-level tasks, more for nested ones. */
  depth: number;
}

export interface Story {
  /** Number the heading starts with (`1`, `2.1`), else its 1-based position; `0` for tasks before any heading. */
  id: string;
  title: string;
  /** 1-based line of the heading (0 for the implicit story `0`). */
  line: number;
  tasks: Task[];
  /** At least one task and every task checked. */
  done: boolean;
}

export type RequirementOperation = 'ADDED' | 'MODIFIED' | 'REMOVED' | 'RENAMED';

export interface Scenario {
  name: string;
  given: string[];
  when: string[];
  then: string[];
}

export interface Requirement {
  capability: string;
  name: string;
  /** The delta section the requirement sits under; null in a spec without delta headers. */
  operation: RequirementOperation | null;
  scenarios: Scenario[];
}

export interface Counts {
  total: number;
  done: number;
}

export interface ChangeSummary {
  name: string;
  /** Path of the change folder relative to the repository root (POSIX separators). */
  path: string;
  stories: Counts;
  tasks: Counts;
  /** Newest modification time of any file in the change folder (ISO 8601). */
  lastModified: string;
}

export interface Change {
  name: string;
  path: string;
  stories: Story[];
  requirements: Requirement[];
  proposal: string | null;
  design: string | null;
}

export function countStories(stories: readonly Story[]): Counts {
  return { total: stories.length, done: stories.filter((s) => s.done).length };
}

export function countTasks(stories: readonly Story[]): Counts {
  const tasks = stories.flatMap((s) => s.tasks);
  return { total: tasks.length, done: tasks.filter((t) => t.done).length };
}
