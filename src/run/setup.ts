import { existsSync } from 'node:fs';
import path from 'node:path';
import type { Change, Story } from '../core/change.js';
import type { PromptChangePaths } from '../core/prompt.js';
import { inferVerifyCommands, VERIFY_MARKER_FILES } from '../core/verify-inference.js';
import { changePaths } from '../openspec/changes.js';
import { readOptionalText } from '../openspec/read-text.js';
import { parseTasks } from '../openspec/tasks.js';

/** Paths of the change's files relative to the repository root, for the prompt. */
export function promptPaths(repoRoot: string, specRoot: string, change: Change): PromptChangePaths {
  const abs = changePaths(specRoot, change.name);
  const rel = (file: string): string => path.relative(repoRoot, file).split(path.sep).join('/');
  return {
    changeDir: rel(abs.dir),
    tasks: rel(abs.tasksPath),
    proposal: existsSync(abs.proposalPath) ? rel(abs.proposalPath) : null,
    design: existsSync(abs.designPath) ? rel(abs.designPath) : null,
    specsDir: existsSync(abs.specsDir) ? rel(abs.specsDir) : null,
  };
}

/** A reader of the change's current stories; null when tasks.md is gone or unreadable. */
export function storiesReader(specRoot: string, changeName: string): () => Promise<Story[] | null> {
  const tasksPath = changePaths(specRoot, changeName).tasksPath;
  return async () => {
    try {
      const content = await readOptionalText(tasksPath, 'tasks.md');
      return content === null ? null : parseTasks(content);
    } catch {
      return null;
    }
  };
}

/**
 * `.ralphtool/instructions.md` of the run's work tree (the checkpoint's, so what the project
 * committed), for every prompt; null when there is none. Unreadable is a reason to stop: the
 * project asked for its rules to be followed.
 */
export async function projectInstructions(repoRoot: string): Promise<string | null> {
  return readOptionalText(
    path.join(repoRoot, '.ralphtool', 'instructions.md'),
    '.ralphtool/instructions.md',
  );
}

/** The user's `--verify` commands, else suggestions inferred from the project's files. */
export function verifyPlan(
  given: readonly string[],
  projectDirs: readonly string[],
): { commands: readonly string[]; inferred: boolean } {
  if (given.length > 0) return { commands: given, inferred: false };
  const present = new Set<string>();
  for (const dir of projectDirs) {
    for (const file of VERIFY_MARKER_FILES) {
      if (existsSync(path.join(dir, file))) present.add(file);
    }
  }
  return { commands: inferVerifyCommands(present), inferred: true };
}
