// Benchmark repositories: a small one and one of many files, each holding a change of N
// stories, made once per benchmark and copied for every run (a run leaves its branch behind).
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import process from 'node:process';

export const CHANGE = 'bench-change';

/** Environment for git and ralphtool: nothing inherited that points git elsewhere or configures it. */
export function benchEnv(home) {
  const env = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1', NO_COLOR: '1' };
  for (const key of ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_OBJECT_DIRECTORY']) {
    delete env[key];
  }
  delete env.FORCE_COLOR;
  return env;
}

/**
 * A scratch folder for one benchmark (`work`, removed by the caller), its HOME inside, and the
 * environment its repositories use: commit dates fixed, so that the same commits get the same
 * shas in every run (the replay maps them, the runs compare them).
 */
export function benchWorkspace(prefix) {
  const work = mkdtempSync(path.join(os.tmpdir(), prefix));
  const home = path.join(work, 'home');
  mkdirSync(home);
  const env = {
    ...benchEnv(home),
    GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
    GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
  };
  return { work, home, env };
}

export function git(cwd, env, ...args) {
  return execFileSync('git', args, {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

function tasksMarkdown(stories) {
  const groups = [];
  for (let i = 1; i <= stories; i++) {
    groups.push(`## ${i}. Story ${i}\n\n- [ ] ${i}.1 Write the file of story ${i}\n`);
  }
  return groups.join('\n');
}

/**
 * A committed repository on `main` with `files` generated files (in folders of 100) besides the
 * change, its README and a package-less source file.
 */
export function makeFixtureRepo(root, name, { files, stories }, env) {
  const dir = path.join(root, name);
  mkdirSync(dir, { recursive: true });
  git(dir, env, 'init', '-q', '-b', 'main');
  git(dir, env, 'config', 'user.name', 'Bench');
  git(dir, env, 'config', 'user.email', 'bench@example.com');
  git(dir, env, 'config', 'commit.gpgsign', 'false');
  const write = (file, content) => {
    const full = path.join(dir, file);
    mkdirSync(path.dirname(full), { recursive: true });
    writeFileSync(full, content);
  };
  write('README.md', '# bench project\n');
  write('src/app.txt', 'app v1\n');
  write(`openspec/changes/${CHANGE}/proposal.md`, `# ${CHANGE}\n\nWhy: a benchmark.\n`);
  write(`openspec/changes/${CHANGE}/tasks.md`, tasksMarkdown(stories));
  for (let i = 0; i < files; i++) {
    const folder = `gen/d${String(Math.floor(i / 100)).padStart(3, '0')}`;
    write(`${folder}/f${String(i % 100).padStart(3, '0')}.txt`, `generated file ${i}\n`);
  }
  git(dir, env, 'add', '-A');
  git(dir, env, '-c', 'gc.auto=0', 'commit', '-q', '-m', 'initial commit');
  // Packed now, as a real repository's history would be: otherwise the commit's automatic
  // `gc --auto` packs 10,000 loose objects in the background while the copies are made.
  git(dir, env, 'gc', '-q');
  return dir;
}

/**
 * A fresh copy of a fixture repository with its index refreshed: a copy has new inodes and
 * ctimes, and without the refresh the first git command would re-hash every file, a cost a
 * user's own repository does not have.
 */
export function copyRepo(template, env) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-bench-run-'));
  cpSync(template, dir, { recursive: true, preserveTimestamps: true });
  git(dir, env, 'update-index', '-q', '--really-refresh');
  git(dir, env, 'status', '--porcelain');
  return dir;
}
