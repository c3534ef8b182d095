import { basename, dirname, isAbsolute, join, relative, resolve, sep } from 'node:path';
import { assertValidChangeName } from '../core/change-name.js';
import { RuntimeError } from '../core/errors.js';

/** Everything ralphtool keeps for one change, outside the work tree (docs/contract.md, "On disk"). */
export interface RunPaths {
  /** `<git-common-dir>/ralphtool/<change>/` */
  dir: string;
  state: string;
  /** The steps done of the git sequence going on (journal.ts). */
  journal: string;
  lock: string;
  learnings: string;
  transcriptsDir: string;
  promptsDir: string;
}

/**
 * The run folder lives in the git common dir so that it is never committed or reverted and
 * is the same from every linked worktree.
 */
export function runPaths(gitCommonDir: string, change: string): RunPaths {
  assertValidChangeName(change);
  const dir = join(resolve(gitCommonDir), 'ralphtool', change);
  return {
    dir,
    state: join(dir, 'state.json'),
    journal: join(dir, 'journal.ndjson'),
    lock: join(dir, 'lock'),
    learnings: join(dir, 'learnings.md'),
    transcriptsDir: join(dir, 'transcripts'),
    promptsDir: join(dir, 'prompts'),
  };
}

/** Folder holding the run folders of every change. */
export function runsRoot(gitCommonDir: string): string {
  return join(resolve(gitCommonDir), 'ralphtool');
}

export function transcriptFile(paths: RunPaths, storyId: string, attempt: number): string {
  return join(paths.transcriptsDir, `${attemptName(storyId, attempt)}.ndjson`);
}

export function promptFile(paths: RunPaths, storyId: string, attempt: number): string {
  return join(paths.promptsDir, `${attemptName(storyId, attempt)}.md`);
}

/**
 * Where `run --worktree` puts the change's worktree: `<parent>/<repo>.ralph/<change>`, by default
 * beside the user's work tree (`parent` is the folder holding it; `--worktree-parent` names
 * another). Not inside the work tree (the user's test runners, linters, watchers and
 * `git clean -x` would see it: `worktreeParentInside` refuses that) and not under `.git` (tools
 * skip paths holding `.git/`: the agent's own test runner would find no tests, editors hide it).
 * The `<repo>.ralph` level keeps the worktrees of two repositories sharing a parent apart.
 */
export function runWorktreeDir(homeRoot: string, change: string, parent: string | null): string {
  const root = resolve(homeRoot);
  return join(parent ?? dirname(root), `${basename(root)}.ralph`, assertValidChangeName(change));
}

/**
 * Why a `--worktree-parent` cannot hold the run worktrees of the work tree at `homeRoot` (null
 * when it can): inside that work tree, its `.git` included, they would be part of it.
 */
export function worktreeParentInside(homeRoot: string, parent: string): string | null {
  const root = resolve(homeRoot);
  const away = relative(root, resolve(parent));
  const outside = away === '..' || away.startsWith(`..${sep}`) || isAbsolute(away);
  if (!outside) {
    return `--worktree-parent ${parent} is inside your work tree ${root}: the worktrees would be part of it (your tests, linters and git clean would see them); name a folder outside it`;
  }
  return null;
}

/**
 * Every tasks.md of the change anywhere in the work tree (an `openspec/` folder need not be at
 * the top), as a git pathspec.
 */
export function tasksPathspec(change: string): string {
  return `:(glob)**/openspec/changes/${assertValidChangeName(change)}/tasks.md`;
}

/** The branch a run of this change works on. */
export function ralphBranch(change: string): string {
  return `ralph/${assertValidChangeName(change)}`;
}

/** Prefix of every attempt ref of a change, ending in `/`. */
export function attemptRefPrefix(change: string): string {
  return `refs/ralphtool/${assertValidChangeName(change)}/attempts/`;
}

/** `refs/ralphtool/<change>/attempts/<story>-<attempt>`: where a failed attempt's tree is saved. */
export function attemptRef(change: string, storyId: string, attempt: number): string {
  return `${attemptRefPrefix(change)}${attemptName(storyId, attempt)}`;
}

/** `<story>-<attempt>`, checked so that it is safe in a ref name and a file name. */
export function attemptName(storyId: string, attempt: number): string {
  if (!isSafeStoryId(storyId)) {
    throw new RuntimeError(
      `story id ${JSON.stringify(storyId)} cannot be used in a file or ref name (letters, digits, ".", "_" and "-" only)`,
    );
  }
  if (!Number.isInteger(attempt) || attempt < 0) {
    throw new RuntimeError(`attempt number ${String(attempt)} is not a whole number`);
  }
  return `${storyId}-${attempt}`;
}

/** Letters, digits, `.`, `_`, `-`; no `..`, no leading `.`/`-`, no `.lock` ending (git ref rules). */
export function isSafeStoryId(storyId: string): boolean {
  return (
    /^[A-Za-z0-9_][A-Za-z0-9._-]{0,99}$/.test(storyId) &&
    !storyId.includes('..') &&
    !storyId.endsWith('.') &&
    !storyId.endsWith('.lock')
  );
}
