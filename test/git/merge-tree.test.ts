import { afterEach, describe, expect, it } from 'vitest';
import { mergeTree } from '../../src/git/merge-tree.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

let repo: TempRepo | undefined;
afterEach(() => {
  repo?.remove();
  repo = undefined;
});

const ctx = (dir: string) => ({ cwd: dir, timeoutMs: 30_000, baseEnv: process.env });

/** Branch `name` from main with `files` written and committed. */
function branch(r: TempRepo, name: string, files: Record<string, string>): string {
  r.git('switch', '-q', '-c', name, 'main');
  for (const [file, content] of Object.entries(files)) r.write(file, content);
  r.git('add', '-A');
  r.git('commit', '-q', '-m', name);
  r.git('switch', '-q', 'main');
  return r.git('rev-parse', name).trim();
}

describe('mergeTree: a three-way merge in memory', () => {
  it('gives the merged tree of branches that touch different files, and changes nothing', () => {
    repo = makeTempRepo({ 'README.md': '# r\n', 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const r = repo;
    const x = branch(r, 'x', { 'a.txt': 'A\n' });
    const y = branch(r, 'y', { 'b.txt': 'B\n', 'c.txt': 'new\n' });
    const headBefore = r.git('rev-parse', 'HEAD');
    return mergeTree(ctx(r.dir), x, y).then((result) => {
      expect(result.clean).toBe(true);
      expect(r.git('ls-tree', '-r', '--name-only', result.tree).trim().split('\n')).toEqual([
        'README.md',
        'a.txt',
        'b.txt',
        'c.txt',
      ]);
      expect(r.git('show', `${result.tree}:a.txt`)).toBe('A\n');
      expect(r.git('show', `${result.tree}:b.txt`)).toBe('B\n');
      expect(r.git('rev-parse', 'HEAD')).toBe(headBefore);
      expect(r.git('status', '--porcelain')).toBe('');
    });
  });

  it('names each conflicting path once: same lines edited, add/add, modify/delete', async () => {
    repo = makeTempRepo({ 'a.txt': 'one\ntwo\nthree\n', 'gone.txt': 'g\n' });
    const r = repo;
    const x = branch(r, 'x', {
      'a.txt': 'one\nTWO-x\nthree\n',
      'new.txt': 'x\n',
      'gone.txt': 'g2\n',
    });
    r.git('switch', '-q', '-c', 'y', 'main');
    r.write('a.txt', 'one\nTWO-y\nthree\n');
    r.write('new.txt', 'y\n');
    r.git('rm', '-q', 'gone.txt');
    r.git('add', '-A');
    r.git('commit', '-q', '-m', 'y');
    r.git('switch', '-q', 'main');
    const y = r.git('rev-parse', 'y').trim();
    const result = await mergeTree(ctx(r.dir), x, y);
    expect(result.clean).toBe(false);
    if (result.clean) return;
    expect([...result.files].sort()).toEqual(['a.txt', 'gone.txt', 'new.txt']);
    expect(r.git('status', '--porcelain')).toBe('');
  });

  it('fails with a GitError naming the command when a side is not a commit', async () => {
    repo = makeTempRepo();
    await expect(mergeTree(ctx(repo.dir), 'main', 'no-such-branch')).rejects.toThrow(/merge-tree/);
  });
});
