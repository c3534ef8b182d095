import { describe, expect, it } from 'vitest';
import { operationsInProgress, type GitOperation } from '../../src/git/status.js';
import { repoPerTest, type TempRepo } from './helpers.js';

// Every half-done operation git can leave, made by git itself, told by its marker files in
// the git directory (one listing of it, then only the markers whose folder is there).

const repo = repoPerTest();

/** main and other, each changing README.md: any replay of one onto the other conflicts. */
function conflicting(): TempRepo {
  const r = repo();
  r.git('checkout', '-q', '-b', 'other');
  r.write('README.md', 'other\n');
  r.git('commit', '-q', '-am', 'other');
  r.write('other.txt', 'second\n');
  r.git('add', 'other.txt');
  r.git('commit', '-q', '-m', 'other 2');
  r.git('checkout', '-q', 'main');
  r.write('README.md', 'main\n');
  r.git('commit', '-q', '-am', 'main');
  return r;
}

const CASES: { name: string; start: (r: TempRepo) => void; expected: GitOperation[] }[] = [
  { name: 'nothing', start: () => undefined, expected: [] },
  { name: 'a merge', start: (r) => r.gitStatus('merge', 'other'), expected: ['merge'] },
  { name: 'a rebase', start: (r) => r.gitStatus('rebase', 'other'), expected: ['rebase'] },
  {
    name: 'an apply-style rebase',
    start: (r) => r.gitStatus('rebase', '--apply', 'other'),
    expected: ['rebase'],
  },
  {
    name: '`git am`',
    start: (r) => {
      const patch = r.git('format-patch', '--stdout', '-1', 'other~1');
      r.write('../x.patch', `${patch}\n`);
      r.gitStatus('am', '../x.patch');
    },
    expected: ['am'],
  },
  {
    name: 'a cherry-pick of one commit',
    start: (r) => r.gitStatus('cherry-pick', 'other~1'),
    expected: ['cherry-pick'],
  },
  {
    name: 'a cherry-pick of several (the sequencer)',
    start: (r) => r.gitStatus('cherry-pick', 'main..other'),
    expected: ['cherry-pick'],
  },
  {
    name: 'a revert',
    start: (r) => {
      r.write('README.md', 'main again\n');
      r.git('commit', '-q', '-am', 'main again');
      r.gitStatus('revert', '--no-edit', 'HEAD~1');
    },
    expected: ['revert'],
  },
  {
    name: 'a bisect',
    start: (r) => r.git('bisect', 'start', 'HEAD', 'HEAD~1'),
    expected: ['bisect'],
  },
  {
    name: 'a bisect and a merge',
    start: (r) => {
      r.git('bisect', 'start');
      r.gitStatus('merge', 'other');
    },
    expected: ['merge', 'bisect'],
  },
];

describe('operationsInProgress', () => {
  it.each(CASES)('tells $name', async ({ start, expected }) => {
    const r = conflicting();
    start(r);
    expect(await operationsInProgress(`${r.dir}/.git`)).toEqual(expected);
  });

  it('looks at every marker when the git directory cannot be listed', async () => {
    expect(await operationsInProgress('/nonexistent/.git')).toEqual([]);
  });
});
