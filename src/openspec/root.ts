import { existsSync, realpathSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { UsageError } from '../core/errors.js';

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Whether `dir/openspec/` is a real OpenSpec root in the CLI's sense
 * (`findQualifyingRootSync` in OpenSpec's root-selection): it holds `changes/`
 * or `specs/`, or a config file. A bare `openspec/` folder (say, a checkout of
 * OpenSpec itself under $HOME) does not capture every directory below it.
 */
function isOpenSpecRoot(dir: string): boolean {
  const openspec = join(dir, 'openspec');
  if (!isDirectory(openspec)) return false;
  return (
    isDirectory(join(openspec, 'changes')) ||
    isDirectory(join(openspec, 'specs')) ||
    existsSync(join(openspec, 'config.yaml')) ||
    existsSync(join(openspec, 'config.yml'))
  );
}

/**
 * The directory holding `openspec/`, searched from `startDir` upwards like the
 * OpenSpec CLI does, so that ralphtool works from any subdirectory of a project.
 * The search stops at the top of the git work tree it starts in (the first folder with a
 * `.git`): a change of an enclosing project is not this repository's, and running it would
 * send the agent and the checkpoints into that other repository.
 * Returned as a canonical (symlink-free) absolute path.
 */
export function findOpenSpecRoot(startDir: string): string {
  const start = resolve(startDir);
  let dir = start;
  for (;;) {
    if (isOpenSpecRoot(dir)) return realpathSync(dir);
    if (existsSync(join(dir, '.git'))) {
      throw new UsageError(
        `no openspec/ folder in the repository ${dir}: run \`openspec init\` there first`,
      );
    }
    const parent = dirname(dir);
    if (parent === dir) break;
    dir = parent;
  }
  throw new UsageError(
    `no openspec/ folder found in ${start} or above: run \`openspec init\` first`,
  );
}
