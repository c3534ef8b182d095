import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  gitDirPrint,
  headBranchOnDisk,
  headCommitOnDisk,
  looseBranchSha,
  refOnDisk,
  samePrint,
} from '../../src/git/on-disk.js';
import type { RepoLocation } from '../../src/git/repo.js';
import { makeRepo, type TempRepo } from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const made of repos.splice(0)) made.remove();
});

function repoWithBranch(): { r: TempRepo; repo: RepoLocation } {
  const r = makeRepo();
  repos.push(r);
  r.git('switch', '-q', '-c', 'ralph/x');
  const gitDir = join(r.dir, '.git');
  return { r, repo: { root: r.dir, gitDir, gitCommonDir: gitDir } };
}

describe('git files read off disk', () => {
  it('reads HEAD and a loose branch as git does, and says null where git must be asked', async () => {
    const { r, repo } = repoWithBranch();
    const head = r.git('rev-parse', 'HEAD');
    expect(await headBranchOnDisk(repo)).toBe('ralph/x');
    expect(await looseBranchSha(repo, 'ralph/x')).toBe(head);
    expect(await headCommitOnDisk(repo)).toBe(head);
    expect(await refOnDisk(repo, 'refs/heads/ralph/x')).toBe(head);
    // Packed (after `git pack-refs`, a gc or a clone): the loose file is gone.
    r.git('pack-refs', '--all', '--prune');
    expect(await looseBranchSha(repo, 'ralph/x')).toBeNull();
    expect(await headCommitOnDisk(repo)).toBeNull();
    expect(await refOnDisk(repo, 'refs/heads/ralph/x')).toBe(head);
    expect(await refOnDisk(repo, 'refs/heads/ralph/x-not')).toBeNull();
    expect(await refOnDisk(repo, 'refs/heads/ralph')).toBeNull();
    // A branch that is a folder of others, one that does not exist, a detached HEAD.
    r.git('branch', 'other/y');
    expect(await looseBranchSha(repo, 'other')).toBeNull();
    expect(await looseBranchSha(repo, 'nope')).toBeNull();
    r.git('switch', '-q', '--detach');
    expect(await headBranchOnDisk(repo)).toBeNull();
    expect(await headCommitOnDisk(repo)).toBeNull();
  });

  it('a ref file that does not hold a sha is not read as one', async () => {
    const { repo } = repoWithBranch();
    writeFileSync(join(repo.gitCommonDir, 'refs/heads/ralph/x'), 'ref: refs/heads/main\n');
    expect(await looseBranchSha(repo, 'ralph/x')).toBeNull();
  });
});

describe('the print of the git directory', () => {
  /** Each way an agent moves HEAD, the branch or the index changes the print. */
  const moves: [string, (r: TempRepo, repo: RepoLocation) => void][] = [
    ['a commit', (r) => r.git('commit', '-q', '--allow-empty', '-m', 'x')],
    [
      'a commit amended back to the same tree',
      (r) => r.git('commit', '-q', '--amend', '--no-edit'),
    ],
    ['`git add` of a file', (r) => (r.write('a.txt', 'a\n'), r.git('add', 'a.txt'))],
    [
      '`git add -f` of an ignored file',
      (r) => (r.write('.env', 's\n'), r.git('add', '-f', '.env')),
    ],
    [
      '`git status` refreshing the index',
      (r) => (r.write('README.md', r.read('README.md')), r.git('status')),
    ],
    ['a switch to another branch', (r) => r.git('switch', '-q', 'main')],
    [
      'a switch away and back',
      (r) => (r.git('switch', '-q', 'main'), r.git('switch', '-q', 'ralph/x')),
    ],
    ['a detached HEAD', (r) => r.git('switch', '-q', '--detach')],
    [
      '`update-ref` of the branch to where it is',
      (r) => r.git('update-ref', 'refs/heads/ralph/x', 'HEAD'),
    ],
    ['`reset --soft` to where it is', (r) => r.git('reset', '-q', '--soft', 'HEAD')],
    ['`git pack-refs`', (r) => r.git('pack-refs', '--all')],
    [
      'the ref file written by hand',
      (r, repo) => {
        const file = join(repo.gitCommonDir, 'refs/heads/ralph/x');
        const other = r.git('commit-tree', '-m', 'x', `${r.git('rev-parse', 'HEAD')}^{tree}`);
        writeFileSync(file, `${other}\n`);
      },
    ],
    [
      'HEAD written by hand',
      (_r, repo) => writeFileSync(join(repo.gitDir, 'HEAD'), 'ref: refs/heads/main\n'),
    ],
  ];

  it.each(moves)('changes with %s', async (_what, move) => {
    const { r, repo } = repoWithBranch();
    const before = await gitDirPrint(repo, 'ralph/x');
    move(r, repo);
    expect(samePrint(before, await gitDirPrint(repo, 'ralph/x'))).toBe(false);
  });

  it("changes when a reftable repository's list of tables is rewritten (refs live there)", async () => {
    const { repo } = repoWithBranch();
    const tables = join(repo.gitCommonDir, 'reftable', 'tables.list');
    mkdirSync(dirname(tables), { recursive: true });
    writeFileSync(tables, '0x000000000001-0x000000000002-a1b2c3d4.ref\n');
    const before = await gitDirPrint(repo, 'ralph/x');
    // A commit adds a table: same size of list entry, other name.
    writeFileSync(tables, '0x000000000001-0x000000000003-e5f6a7b8.ref\n');
    expect(samePrint(before, await gitDirPrint(repo, 'ralph/x'))).toBe(false);
    // And refs are then never read off disk: git is asked.
    expect(await refOnDisk(repo, 'refs/heads/ralph/x')).toBeUndefined();
  });

  it('stays the same when only files change, and git only reads', async () => {
    const { r, repo } = repoWithBranch();
    r.write('.gitignore', '.env\n');
    r.git('add', '.gitignore');
    r.git('commit', '-q', '-m', 'ignore');
    r.git('status'); // the index refreshed once, before the print
    const before = await gitDirPrint(repo, 'ralph/x');
    r.write('new.txt', 'n\n');
    r.write('.env', 'secret\n');
    r.write('README.md', `${r.read('README.md')}more\n`);
    r.git('log', '--oneline');
    r.git('ls-files', '--others');
    r.git('rev-parse', 'HEAD');
    expect(samePrint(before, await gitDirPrint(repo, 'ralph/x'))).toBe(true);
  });
});
