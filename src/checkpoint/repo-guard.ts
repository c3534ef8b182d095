import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { errnoCode } from '../core/error-details.js';
import { ignoredUntracked } from '../git/status.js';
import type { RunGit } from './run-git.js';

/**
 * Files of the git directory that change what git does, and that an agent can edit: config
 * (`core.worktree`, `core.bare`, `core.fsmonitor`, filters, `core.excludesFile`, includes,
 * `gc.*`), the per-worktree config, and the repository's own ignore and attribute rules.
 * Named relative to the common dir (`common`) or this work tree's git dir (`own`).
 */
const GUARDED: readonly { where: 'common' | 'own'; name: string }[] = [
  { where: 'common', name: 'config' },
  { where: 'common', name: 'config.worktree' },
  { where: 'own', name: 'config.worktree' },
  { where: 'common', name: 'info/exclude' },
  { where: 'common', name: 'info/attributes' },
];

/** The list of paths ignored when the run started, kept in the run folder across resumes. */
export const IGNORED_AT_START = 'ignored-at-start';

/** What a sequence needs to protect the repository, and where it says what it did on its own. */
export interface Protection {
  guard: RepoGuard;
  /** `<story>-<attempt>`, naming what is saved in the run folder. */
  label: string;
  /** Receives one line per thing the user should know (nested repositories, secrets left out). */
  notices: string[];
}

interface GuardedFile {
  path: string;
  /** Where it is saved under the run folder when the agent changed it. */
  label: string;
  /** Its bytes when the guard was taken; null when it did not exist. */
  bytes: Buffer | null;
}

/**
 * What the repository looked like before the agent ran: the bytes of the files that steer
 * git, and the untracked files git ignored (secrets such as `.env`, `node_modules/`).
 * Before every git sequence the files are put back (the agent's version saved in the run
 * folder), and the ignored paths are kept out of every commit and every `git clean`, even when
 * the agent has un-ignored them.
 */
export class RepoGuard {
  /** The ignored files, for a quick lookup. */
  private readonly ignoredFiles: Set<string>;
  /** The ignored folders, each ending in `/`. */
  private readonly ignoredFolders: string[];

  private constructor(
    private readonly files: readonly GuardedFile[],
    /** Ignored paths at the start, as `ls-files --directory` names them (`dir/` for a folder). */
    readonly ignored: readonly string[],
  ) {
    this.ignoredFiles = new Set(ignored.filter((entry) => !entry.endsWith('/')));
    this.ignoredFolders = ignored.filter((entry) => entry.endsWith('/'));
  }

  static async capture(g: RunGit): Promise<RepoGuard> {
    const files: GuardedFile[] = [];
    const seen = new Set<string>();
    for (const { where, name } of GUARDED) {
      const path = join(where === 'common' ? g.repo.gitCommonDir : g.repo.gitDir, name);
      if (seen.has(path)) continue; // in the main work tree both dirs are the same
      seen.add(path);
      files.push({ path, label: name.replace('/', '-'), bytes: await readOrNull(path) });
    }
    const file = join(g.paths.dir, IGNORED_AT_START);
    const recorded = splitNul((await readOrNull(file))?.toString('utf8') ?? '');
    const now = await ignoredPaths(g);
    const ignored = [...new Set([...recorded, ...now])].sort();
    await mkdir(g.paths.dir, { recursive: true });
    await writeFile(file, ignored.map((p) => `${p}\0`).join(''));
    return new RepoGuard(files, ignored);
  }

  /**
   * Puts back every guarded file the agent changed, saving its version under
   * `<run folder>/tampered/<label>/`; returns one notice per file put back.
   */
  async restore(g: RunGit, label: string): Promise<string[]> {
    const notices: string[] = [];
    for (const file of this.files) {
      const now = await readOrNull(file.path);
      if (sameBytes(now, file.bytes)) continue;
      let saved = '';
      if (now !== null) {
        const copy = join(g.paths.dir, 'tampered', label, file.label);
        await mkdir(dirname(copy), { recursive: true });
        await writeFile(copy, now);
        saved = ` (its version is saved as ${copy})`;
      }
      // Removed first: writing through a symlink the agent put there would overwrite its target,
      // and a folder in the file's place could not be written at all.
      await rm(file.path, { recursive: true, force: true });
      if (file.bytes !== null) {
        await mkdir(dirname(file.path), { recursive: true });
        await writeFile(file.path, file.bytes);
      }
      const what = now === null ? 'deleted' : file.bytes === null ? 'created' : 'changed';
      notices.push(
        `the attempt ${what} ${file.path}, which steers git; ralphtool put it back as it was before the attempt${saved}`,
      );
    }
    return notices;
  }

  /** Whether a path (as git names it, relative to the top level) was ignored at the start. */
  isIgnoredAtStart(path: string): boolean {
    return this.ignoredEntryOf(path) !== null;
  }

  /** The recorded entry that covers a path (itself, or an ignored folder above it), else null. */
  ignoredEntryOf(path: string): string | null {
    if (this.ignoredFiles.has(path)) return path;
    return (
      this.ignoredFolders.find((folder) => path.startsWith(folder) || `${path}/` === folder) ?? null
    );
  }
}

/** Untracked files git ignores now, ignored folders named once (`node_modules/`). */
async function ignoredPaths(g: RunGit): Promise<string[]> {
  return ignoredUntracked(g.ctx, { folders: true });
}

function splitNul(text: string): string[] {
  return text.split('\0').filter((p) => p !== '');
}

async function readOrNull(path: string): Promise<Buffer | null> {
  try {
    return await readFile(path);
  } catch (error) {
    const code = errnoCode(error);
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    // A folder (or an unreadable file) where the file was: different from any bytes.
    if (code === 'EISDIR' || code === 'EACCES') return Buffer.from('\0<not a readable file>\0');
    throw error;
  }
}

function sameBytes(a: Buffer | null, b: Buffer | null): boolean {
  return a === null || b === null ? a === b : a.equals(b);
}
