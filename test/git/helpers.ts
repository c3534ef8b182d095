import { execFileSync } from 'node:child_process';
import {
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import type { RunLocation } from '../../src/checkpoint/types.js';

/** Limit for each git command in these tests: generous, the machine is slow and shared. */
export const TIMEOUT_MS = 30_000;

/**
 * Where a checkpoint test's run is. Git starts from the test process's environment, as
 * ralphtool's git did before each caller had to pass the command's own.
 */
export function runLocation(cwd: string, change: string): RunLocation {
  return { cwd, change, timeoutMs: TIMEOUT_MS, baseEnv: process.env };
}

/** The test process's environment without variables that would point git elsewhere. */
export function cleanEnv(extra: Record<string, string> = {}): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined && !key.startsWith('GIT_')) env[key] = value;
  }
  return { ...env, GIT_CONFIG_NOSYSTEM: '1', LC_ALL: 'C', ...extra };
}

export interface TempRepo {
  dir: string;
  /** Runs git in the repository and returns stdout without trailing whitespace; throws on failure. */
  git(...args: string[]): string;
  /** Like `git` but returns the exit code instead of throwing. */
  gitStatus(...args: string[]): number;
  write(path: string, content: string | Buffer): void;
  read(path: string): string;
  remove(): void;
}

export interface RepoOptions {
  /** Make the initial commit (default true). */
  commit?: boolean;
  /** Set a local user.name/user.email (default true). */
  identity?: boolean;
  /** Environment for git, e.g. an empty HOME. */
  env?: Record<string, string>;
}

/** A temporary repository: branch main, local identity, signing off, one commit (README.md). */
export function makeRepo(opts: RepoOptions = {}): TempRepo {
  const dir = mkdtempSync(join(tmpdir(), 'ralphtool-git-'));
  return repoAt(dir, opts);
}

export function repoAt(dir: string, opts: RepoOptions = {}): TempRepo {
  const env = cleanEnv(opts.env);
  const run = (args: string[]): string =>
    execFileSync('git', args, {
      cwd: dir,
      env,
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const repo: TempRepo = {
    dir,
    git: (...args) => run(args).trimEnd(),
    gitStatus: (...args) => {
      try {
        run(args);
        return 0;
      } catch (error) {
        return (error as { status?: number }).status ?? -1;
      }
    },
    write: (path, content) => {
      mkdirSync(dirname(join(dir, path)), { recursive: true });
      writeFileSync(join(dir, path), content);
    },
    read: (path) => readFileSync(join(dir, path), 'utf8'),
    remove: () => rmSync(dir, { recursive: true, force: true }),
  };
  if (lstatExists(join(dir, '.git'))) return repo;
  repo.git('init', '-q', '-b', 'main');
  if (opts.identity ?? true) {
    repo.git('config', 'user.name', 'Test User');
    repo.git('config', 'user.email', 'test@example.com');
  }
  repo.git('config', 'commit.gpgsign', 'false');
  if (opts.commit ?? true) {
    repo.write('README.md', '# test\n');
    repo.git('add', '-A');
    repo.git('commit', '-q', '-m', 'first');
  }
  return repo;
}

/**
 * Every file under `dir` except `.git`, tracked or not, ignored or not, byte for byte:
 * `path -> "<mode> <base64>"`, symlinks as `link <target>`, empty directories as `dir`.
 */
export function snapshotFiles(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (relative: string): void => {
    const entries = readdirSync(join(dir, relative));
    if (entries.length === 0 && relative !== '') files[`${relative}/`] = 'dir';
    for (const name of entries) {
      const path = relative === '' ? name : `${relative}/${name}`;
      if (path === '.git') continue;
      const full = join(dir, path);
      const stat = lstatSync(full);
      if (stat.isSymbolicLink()) files[path] = `link ${readlinkSync(full)}`;
      else if (stat.isDirectory()) walk(path);
      else
        files[path] =
          `${(stat.mode & 0o111) !== 0 ? 'x' : '-'} ${readFileSync(full).toString('base64')}`;
    }
  };
  walk('');
  return files;
}

function lstatExists(path: string): boolean {
  try {
    lstatSync(path);
    return true;
  } catch {
    return false;
  }
}

/**
 * A `repo()` for one test file: each call makes a temporary repository (as makeRepo), and all
 * of them are removed after each test.
 */
export function repoPerTest(): (...args: Parameters<typeof makeRepo>) => TempRepo {
  const repos: TempRepo[] = [];
  afterEach(() => {
    for (const made of repos.splice(0)) made.remove();
  });
  return (...args) => {
    const made = makeRepo(...args);
    repos.push(made);
    return made;
  };
}
