import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { UsageError } from '../../core/errors.js';
import { messageOf } from '../../core/error-details.js';
import { templateProblem } from '../../core/prompt-template.js';
import { locateRepo } from '../../git/repo.js';
import { DEFAULT_RUN_OPTIONS } from '../../run/options.js';
import type { RawRunFlags } from '../run-flags.js';
import { mergeSettings, type MergedSettings, type SettingsMode } from './merge.js';
import { parseSettingsFile, type SettingsFile, type SettingsScope } from './settings-file.js';

// The edge of the settings: where the two files are and their text. What they mean is
// settings-file.ts and merge.ts.

/** The folder of the repository's own ralphtool files (settings, instructions, template). */
export const PROJECT_FOLDER = '.ralphtool';

export interface SettingsPlaces {
  /** The repository's work tree root; null outside a git repository. */
  root: string | null;
  /** `<root>/.ralphtool/config.yaml`; null outside a git repository. */
  repository: string | null;
  /** `$XDG_CONFIG_HOME/ralphtool/config.yaml`, else `~/.config/ralphtool/config.yaml`. */
  user: string;
}

/** Where the settings files of a command started in `cwd` are. */
export async function settingsPlaces(cwd: string, env: NodeJS.ProcessEnv): Promise<SettingsPlaces> {
  const repo = await locateRepo({
    cwd,
    timeoutMs: DEFAULT_RUN_OPTIONS.commandTimeoutMs,
    baseEnv: env,
  });
  const root = repo?.root ?? null;
  // XDG's rule: a relative XDG_CONFIG_HOME is invalid and ignored.
  const xdg = env.XDG_CONFIG_HOME;
  const configHome =
    xdg !== undefined && path.isAbsolute(xdg)
      ? xdg
      : path.join(env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir(), '.config');
  return {
    root,
    repository: root === null ? null : path.join(root, PROJECT_FOLDER, 'config.yaml'),
    user: path.join(configHome, 'ralphtool', 'config.yaml'),
  };
}

/** The files that exist, read and checked, highest first (the repository's, then the user's). */
export async function readSettingsFiles(places: SettingsPlaces): Promise<SettingsFile[]> {
  const files: SettingsFile[] = [];
  const wanted: [string | null, SettingsScope][] = [
    [places.repository, 'repository'],
    [places.user, 'user'],
  ];
  for (const [file, scope] of wanted) {
    if (file === null) continue;
    const text = await readOptional(file);
    if (text !== null) files.push(parseSettingsFile(text, file, scope));
  }
  return files;
}

/** The command's flags with the settings files filled in, by the precedence and the mode. */
export async function withSettings(
  cwd: string,
  env: NodeJS.ProcessEnv,
  flags: RawRunFlags,
  mode: SettingsMode,
): Promise<MergedSettings & { places: SettingsPlaces }> {
  const places = await settingsPlaces(cwd, env);
  const files = await readSettingsFiles(places);
  const merged = mergeSettings(flags, files, mode);
  const parent = merged.flags.worktreeParent;
  if (parent !== undefined) {
    const source = merged.sources.get('worktree-parent');
    merged.flags.worktreeParent =
      source?.kind === 'file' ? fileFolder(parent, places, env) : path.resolve(cwd, parent);
  }
  // A new run reads the template once; a resume goes on with the one its intent recorded.
  const template = mode === 'start' ? await readPromptTemplate(places.root) : null;
  if (template !== null) merged.flags = { ...merged.flags, promptTemplate: template };
  return { ...merged, places };
}

/**
 * A folder named in a settings file, as an absolute path: `~/` is the user's home (no shell
 * reads the file to expand it), and a relative path starts at the repository's top, where the
 * team's file is, whichever folder the command was started in.
 */
function fileFolder(value: string, places: SettingsPlaces, env: NodeJS.ProcessEnv): string {
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir();
  if (value === '~' || value.startsWith('~/')) return path.join(home, value.slice(1));
  return path.resolve(places.root ?? path.dirname(places.user), value);
}

/** A file's text, or null when there is none; any other failure is the user's to fix. */
export async function readOptional(file: string): Promise<string | null> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw new UsageError(`${file}: cannot read it: ${messageOf(error)}`);
  }
}

/**
 * The repository's `.ralphtool/prompt.md`, checked (core/prompt-template.ts): its text, or null
 * when the repository has none (the built-in prompt). A template that lacks a required
 * placeholder or names an unknown one is refused here, before anything changes.
 */
export async function readPromptTemplate(root: string | null): Promise<string | null> {
  if (root === null) return null;
  const file = path.join(root, PROJECT_FOLDER, 'prompt.md');
  const text = await readOptional(file);
  if (text === null) return null;
  const problem = templateProblem(text, file);
  if (problem !== null) throw new UsageError(problem);
  return text;
}
