import type { Dirent } from 'node:fs';
import { readdirSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  countStories,
  countTasks,
  type Change,
  type ChangeSummary,
  type Story,
} from '../core/change.js';
import { assertValidChangeName, isValidChangeName } from '../core/change-name.js';
import { RuntimeError, UsageError } from '../core/errors.js';
import { didYouMean } from '../core/suggest.js';
import { lastModifiedIn } from './last-modified.js';
import { readOptionalText, readOptionalTextSync } from './read-text.js';
import { parseTasks } from './tasks.js';
import { errnoCode, messageOf } from '../core/error-details.js';

/** The folder under openspec/changes/ that holds archived changes, which are never run. */
const ARCHIVE = 'archive';

/** Absolute paths of a change's files, for the prompt (they may not exist). */
export interface ChangePaths {
  dir: string;
  tasksPath: string;
  proposalPath: string;
  designPath: string;
  specsDir: string;
}

/** `openspec/changes/<name>`, relative to the repository root, with POSIX separators. */
export function changeRelativePath(name: string): string {
  return `openspec/changes/${name}`;
}

/** Where a change's files live. `root` is the folder holding openspec/; the name is checked first. */
export function changePaths(root: string, name: string): ChangePaths {
  assertValidChangeName(name);
  const dir = join(root, 'openspec', 'changes', name);
  return {
    dir,
    tasksPath: join(dir, 'tasks.md'),
    proposalPath: join(dir, 'proposal.md'),
    designPath: join(dir, 'design.md'),
    specsDir: join(dir, 'specs'),
  };
}

/** Stories of a change's tasks.md; a change without tasks.md has none. */
function readStories(paths: ChangePaths, name: string): Story[] {
  const content = readOptionalTextSync(paths.tasksPath, `${changeRelativePath(name)}/tasks.md`);
  return content === null ? [] : parseTasks(content);
}

function changeDirEntries(root: string): Dirent[] {
  const changesDir = join(root, 'openspec', 'changes');
  try {
    return readdirSync(changesDir, { withFileTypes: true });
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return [];
    throw new RuntimeError(`cannot list openspec/changes: ${messageOf(error)}`);
  }
}

function lastModifiedOf(dir: string, name: string): string {
  try {
    return lastModifiedIn(dir).toISOString();
  } catch (error) {
    const reason = messageOf(error);
    throw new RuntimeError(`cannot read ${changeRelativePath(name)}: ${reason}`);
  }
}

/**
 * The active changes with their progress, sorted by name. Like `openspec list`
 * it takes every folder under openspec/changes/ except archive/; folders whose
 * names are not valid change names are left out, since no command could take them.
 */
export function listChanges(root: string): Promise<ChangeSummary[]> {
  // A failure rejects the promise, as from an async function.
  return new Promise((resolve) => resolve(summaries(root)));
}

/**
 * One change after another, synchronously: each is a few small reads and stats that the page
 * cache answers at once; through the thread pool (all changes at once, as before) the same
 * reads took 4–5 times as long for 100 changes, most of it waiting for the pool's threads.
 */
function summaries(root: string): ChangeSummary[] {
  return listChangeNames(root).map((name): ChangeSummary => {
    const paths = changePaths(root, name);
    const stories = readStories(paths, name);
    return {
      name,
      path: changeRelativePath(name),
      stories: countStories(stories),
      tasks: countTasks(stories),
      lastModified: lastModifiedOf(paths.dir, name),
    };
  });
}

/** The names `listChanges` lists, sorted. */
function listChangeNames(root: string): string[] {
  return changeDirEntries(root)
    .filter((entry) => entry.isDirectory() && entry.name !== ARCHIVE)
    .map((entry) => entry.name)
    .filter(isValidChangeName)
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * Folders under openspec/changes/ that `listChanges` leaves out because their names are not
 * valid change names (`My_Change`): OpenSpec itself lists them, so `list` names them rather
 * than letting them vanish.
 */
export function invalidChangeFolders(root: string): Promise<string[]> {
  return new Promise((resolve) =>
    resolve(
      changeDirEntries(root)
        .filter((entry) => entry.isDirectory() && entry.name !== ARCHIVE)
        .map((entry) => entry.name)
        .filter((name) => !isValidChangeName(name))
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0)),
    ),
  );
}

async function assertChangeExists(root: string, paths: ChangePaths, name: string): Promise<void> {
  const unknown = (): UsageError => {
    // The suggestion is a courtesy: a folder that cannot be listed only loses it.
    let known: string[] = [];
    try {
      known = listChangeNames(root);
    } catch {
      // No suggestion then.
    }
    return new UsageError(
      `unknown change "${name}"${didYouMean(name, known)}: no folder ${changeRelativePath(name)} (see \`ralphtool list\`)`,
    );
  };
  if (name === ARCHIVE) {
    throw new UsageError(
      `"${ARCHIVE}" holds archived changes, which are never run (see \`ralphtool list\`)`,
    );
  }
  let isDirectory: boolean;
  try {
    isDirectory = (await stat(paths.dir)).isDirectory();
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') throw unknown();
    throw new RuntimeError(`cannot read ${changeRelativePath(name)}: ${messageOf(error)}`);
  }
  if (!isDirectory) throw unknown();
}

/** Everything ralphtool knows about one change: stories, requirements, proposal and design. */
export async function readChange(root: string, name: string): Promise<Change> {
  const paths = changePaths(root, name);
  await assertChangeExists(root, paths, name);
  const shown = changeRelativePath(name);
  const stories = readStories(paths, name);
  // The spec reader (three modules) is loaded by the commands that read one change, not by `list`.
  const { readSpecs } = await import('./specs.js');
  const requirements = await readSpecs(paths.specsDir, `${shown}/specs`);
  const proposal = await readOptionalText(paths.proposalPath, `${shown}/proposal.md`);
  const design = await readOptionalText(paths.designPath, `${shown}/design.md`);
  return { name, path: shown, stories, requirements, proposal, design };
}
