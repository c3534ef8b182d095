import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_SUCCEED, FaultWorld, type Step } from './support/world.js';

// The attempt creates git repositories inside the work tree: `git init` with or without a
// commit, a clone, a repository inside a new folder, a repository inside another. Git would
// record one with a commit as a gitlink without .gitmodules (its files lost to every clone)
// and refuses one without. ralphtool moves each nested .git to the run folder and treats the
// files as plain files: the revert saves them under the attempt ref and removes them, the
// accept commits them. Never a gitlink.

const CHANGE = 'nested';
const ID = ['-c', 'user.name=agent', '-c', 'user.email=agent@example.com'];

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

interface Variant {
  name: string;
  /** The nested repositories the attempt leaves (their paths). */
  repos: string[];
  /** A file of each, and its content. */
  files: Record<string, string>;
  steps: (w: FaultWorld) => Step[];
}

const VARIANTS: Variant[] = [
  {
    name: '`git init` without a commit',
    repos: ['sub'],
    files: { 'sub/a.txt': 'a\n' },
    steps: () => [{ git: ['init', '-q', 'sub'] }, { write: 'sub/a.txt', content: 'a\n' }],
  },
  {
    name: '`git init` with a commit and an uncommitted change',
    repos: ['sub'],
    files: { 'sub/a.txt': 'a v2\n', 'sub/b.txt': 'b\n' },
    steps: () => [
      { git: ['init', '-q', 'sub'] },
      { write: 'sub/a.txt', content: 'a\n' },
      { git: ['-C', 'sub', 'add', '-A'] },
      { git: ['-C', 'sub', ...ID, 'commit', '-q', '-m', 'nested'] },
      { write: 'sub/a.txt', content: 'a v2\n' },
      { write: 'sub/b.txt', content: 'b\n' },
    ],
  },
  {
    name: 'a clone',
    repos: ['vendor/lib'],
    files: { 'vendor/lib/lib.txt': 'library\n' },
    steps: (w) => [{ git: ['clone', '-q', sourceRepo(w), 'vendor/lib'] }],
  },
  {
    name: 'a repository inside a new plain folder, and one inside it',
    repos: ['tools/gen', 'tools/gen/inner'],
    files: {
      'tools/plain.txt': 'plain\n',
      'tools/gen/g.txt': 'g\n',
      'tools/gen/inner/i.txt': 'i\n',
    },
    steps: () => [
      { write: 'tools/plain.txt', content: 'plain\n' },
      { git: ['init', '-q', 'tools/gen'] },
      { write: 'tools/gen/g.txt', content: 'g\n' },
      { git: ['init', '-q', 'tools/gen/inner'] },
      { write: 'tools/gen/inner/i.txt', content: 'i\n' },
      { git: ['-C', 'tools/gen/inner', 'add', '-A'] },
      { git: ['-C', 'tools/gen/inner', ...ID, 'commit', '-q', '-m', 'inner'] },
    ],
  },
];

/** A small repository outside the work tree for the agent to clone. */
function sourceRepo(w: FaultWorld): string {
  const dir = path.join(w.scratch, 'lib-source');
  if (!existsSync(dir)) {
    mkdirSync(dir, { recursive: true });
    const git = (...args: string[]) => execFileSync('git', args, { cwd: dir, stdio: 'ignore' });
    git('init', '-q');
    writeFileSync(path.join(dir, 'lib.txt'), 'library\n');
    git('add', '-A');
    git(...ID, 'commit', '-q', '-m', 'lib');
  }
  return dir;
}

/** `mode path` of every entry of a commit, recursively. */
function modes(w: FaultWorld, rev: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of w.git('ls-tree', '-r', '-z', rev).split('\0')) {
    if (!line) continue;
    const [meta = '', file = ''] = line.split('\t');
    out.set(file, meta.split(' ')[0] ?? '');
  }
  return out;
}

function expectNoGitlink(w: FaultWorld, rev: string): void {
  const gitlinks = [...modes(w, rev)].filter(([, mode]) => mode === '160000');
  expect(gitlinks).toEqual([]);
  expect(modes(w, rev).has('.gitmodules')).toBe(false);
}

describe('an attempt that creates nested repositories', () => {
  it.each(VARIANTS)(
    '$name, then fails: its files are saved as plain files, its .git kept in the run folder, all removed',
    async ({ repos, files, steps }) => {
      world = new FaultWorld(CHANGE, 2);
      const w = world;
      w.scenario({ '1-1': [...steps(w), { signal: 'FAILED: nope' }], ...ALL_SUCCEED });
      const result = await w.loop('run');
      expect(result.exitCode, result.stderr).toBe(0);

      const saved = `refs/ralphtool/${CHANGE}/attempts/1-1`;
      expectNoGitlink(w, saved);
      for (const [file, content] of Object.entries(files)) {
        expect(w.git('show', `${saved}:${file}`), file).toBe(content);
        expect(modes(w, saved).get(file)).toBe('100644');
      }
      for (const repo of repos) {
        expect(existsSync(path.join(w.dir, repo)), repo).toBe(false);
        expect(existsSync(path.join(w.runDir, 'nested', '1-1', repo, '.git', 'HEAD')), repo).toBe(
          true,
        );
      }
      expect(w.subjects(`main..${w.branch}`)).toEqual([
        'initial state',
        'checkpoint: 1',
        'checkpoint: 2',
      ]);
      expectNoGitlink(w, w.branch);
      expect(w.status()).toEqual([]);
      expect(w.userFilesChanged()).toEqual([]);
      const warnings = result
        .events()
        .filter((e) => e.type === 'error' && e.fatal === false)
        .map((e) => String(e.message));
      expect(warnings).toHaveLength(1);
      expect(warnings[0]).toContain('git repositories inside');
    },
  );

  it.each(VARIANTS)(
    '$name, then completes: its files are committed as plain files, never as a gitlink',
    async ({ repos, files, steps }) => {
      world = new FaultWorld(CHANGE, 2);
      const w = world;
      w.scenario({ '1-1': [...steps(w), { tick: 'all' }, { signal: 'COMPLETE' }], ...ALL_SUCCEED });
      const result = await w.loop('run');
      expect(result.exitCode, result.stderr).toBe(0);

      const checkpoint = `${w.branch}~1`;
      expect(w.git('log', '-1', '--format=%s', checkpoint)).toBe('checkpoint: 1\n');
      expectNoGitlink(w, w.branch);
      for (const [file, content] of Object.entries(files)) {
        expect(w.git('show', `${checkpoint}:${file}`), file).toBe(content);
        expect(w.read(file)).toBe(content);
      }
      for (const repo of repos) {
        expect(existsSync(path.join(w.dir, repo, '.git')), repo).toBe(false);
        expect(existsSync(path.join(w.runDir, 'nested', '1-1', repo, '.git', 'HEAD')), repo).toBe(
          true,
        );
      }
      expect(w.attemptRefs()).toEqual([]);
      expect(w.status()).toEqual([]);
      expect(w.userFilesChanged()).toEqual([]);
    },
  );
});

describe('a submodule the repository already has', () => {
  // The accept and the revert's save find nested repositories in what `add -A` took: a folder
  // that is a submodule of the checkpoint must stay one, whichever way the attempt ends.
  it.each([
    { ends: 'COMPLETE', saved: (w: FaultWorld) => `${w.branch}~1` },
    { ends: 'FAILED: nope', saved: () => `refs/ralphtool/${CHANGE}/attempts/1-1` },
  ])(
    'stays a submodule when the attempt moves its commit, then says $ends: not taken for a repository it made',
    async ({ ends, saved }) => {
      world = new FaultWorld(CHANGE, 2);
      const w = world;
      w.git(
        '-c',
        'protocol.file.allow=always',
        'submodule',
        'add',
        '-q',
        sourceRepo(w),
        'vendor/sub',
      );
      w.git('commit', '-q', '-m', 'a submodule', '--', '.gitmodules', 'vendor/sub');
      w.rebaseline();
      w.scenario({
        '1-1': [
          { git: ['-C', 'vendor/sub', ...ID, 'commit', '-q', '--allow-empty', '-m', 'moved'] },
          { tick: 'all' },
          { signal: ends },
        ],
        ...ALL_SUCCEED,
      });
      const result = await w.loop('run');
      expect(result.exitCode, result.stderr).toBe(0);

      const moved = execFileSync('git', ['rev-parse', 'HEAD'], {
        cwd: path.join(w.dir, 'vendor/sub'),
        encoding: 'utf8',
      }).trim();
      const commit = saved(w);
      expect(w.git('log', '-1', '--format=%s', commit)).toBe(
        ends === 'COMPLETE' ? 'checkpoint: 1\n' : `ralphtool: attempt 1-1 of ${CHANGE}\n`,
      );
      expect(modes(w, commit).get('vendor/sub')).toBe('160000');
      expect(w.git('rev-parse', `${commit}:vendor/sub`).trim()).toBe(moved);
      expect(existsSync(path.join(w.dir, 'vendor/sub', '.git'))).toBe(true);
      expect(existsSync(path.join(w.runDir, 'nested'))).toBe(false);
    },
  );
});
