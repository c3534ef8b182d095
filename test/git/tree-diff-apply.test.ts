import {
  chmodSync,
  existsSync,
  readFileSync,
  readdirSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { applyTreeDifference } from '../../src/git/tree-diff-apply.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

let repo: TempRepo | undefined;
afterEach(() => {
  repo?.remove();
  repo = undefined;
});

const ctx = (dir: string) => ({ cwd: dir, timeoutMs: 30_000, baseEnv: process.env });

/** The tree of `main` with `change` done on a scratch branch, leaving the work tree on main. */
function treeWith(r: TempRepo, change: () => void): string {
  r.git('switch', '-q', '-c', 'scratch', 'main');
  change();
  r.git('add', '-A');
  r.git('commit', '-q', '-m', 'scratch');
  const tree = r.git('rev-parse', 'scratch^{tree}').trim();
  r.git('switch', '-q', 'main');
  r.git('branch', '-q', '-D', 'scratch');
  return tree;
}

describe('applyTreeDifference: two trees difference into the work tree only', () => {
  it('writes edits, new binary, executable and symlinked files and deletions; the index stays as it was', async () => {
    repo = makeTempRepo({ 'a.txt': 'a\n', 'gone.txt': 'g\n', 'staged.txt': 's\n' });
    const r = repo;
    const from = r.git('rev-parse', 'main^{tree}').trim();
    const to = treeWith(r, () => {
      r.write('a.txt', 'a, changed\n');
      writeFileSync(path.join(r.dir, 'bin.dat'), Buffer.from([0, 255, 1, 254, 10, 13, 0]));
      r.write('run.sh', '#!/bin/sh\necho hi\n');
      chmodSync(path.join(r.dir, 'run.sh'), 0o755);
      symlinkSync('a.txt', path.join(r.dir, 'link'));
      r.git('rm', '-q', 'gone.txt');
    });
    // The user's staged change to a file the difference does not touch.
    r.write('staged.txt', 's, staged\n');
    r.git('add', 'staged.txt');
    const indexBefore = r.git('ls-files', '--stage');

    const result = await applyTreeDifference(ctx(r.dir), { from, to, scratchDir: r.dir + '/.git' });
    expect(result).toEqual({ applied: true });
    expect(readFileSync(path.join(r.dir, 'a.txt'), 'utf8')).toBe('a, changed\n');
    expect(readFileSync(path.join(r.dir, 'bin.dat'))).toEqual(
      Buffer.from([0, 255, 1, 254, 10, 13, 0]),
    );
    expect(statSync(path.join(r.dir, 'run.sh')).mode & 0o111).not.toBe(0);
    expect(r.git('status', '--porcelain=v1').split('\n').filter(Boolean).sort()).toEqual([
      ' D gone.txt',
      ' M a.txt',
      '?? bin.dat',
      '?? link',
      '?? run.sh',
      'M  staged.txt',
    ]);
    expect(r.git('ls-files', '--stage')).toBe(indexBefore);
    // The patch file is gone again.
    expect(readdirSync(path.join(r.dir, '.git')).filter((f) => f.endsWith('.patch'))).toEqual([]);
  });

  it('applies nothing at all when one file is not as in `from`, and says why', async () => {
    repo = makeTempRepo({ 'a.txt': 'a\n', 'b.txt': 'b\n' });
    const r = repo;
    const from = r.git('rev-parse', 'main^{tree}').trim();
    const to = treeWith(r, () => {
      r.write('a.txt', 'a, run\n');
      r.write('b.txt', 'b, run\n');
      r.write('c.txt', 'new\n');
    });
    r.write('b.txt', 'b, changed by the user since\n');
    const result = await applyTreeDifference(ctx(r.dir), { from, to, scratchDir: r.dir + '/.git' });
    expect(result.applied).toBe(false);
    if (!result.applied) expect(result.reason).toContain('b.txt');
    expect(readFileSync(path.join(r.dir, 'a.txt'), 'utf8')).toBe('a\n');
    expect(readFileSync(path.join(r.dir, 'b.txt'), 'utf8')).toBe('b, changed by the user since\n');
    expect(existsSync(path.join(r.dir, 'c.txt'))).toBe(false);
  });

  it('does not write over an ignored file where the difference adds one', async () => {
    repo = makeTempRepo({ '.gitignore': 'secret.env\n' });
    const r = repo;
    const from = r.git('rev-parse', 'main^{tree}').trim();
    const to = treeWith(r, () => {
      r.write('secret.env', 'from the run\n');
      r.git('add', '-f', 'secret.env');
    });
    r.write('secret.env', 'SECRET=mine\n');
    const result = await applyTreeDifference(ctx(r.dir), { from, to, scratchDir: r.dir + '/.git' });
    expect(result.applied).toBe(false);
    expect(readFileSync(path.join(r.dir, 'secret.env'), 'utf8')).toBe('SECRET=mine\n');
  });
});
