import { readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { snapshotWorkTree } from '../../src/git/snapshot.js';
import { makeRepo, TIMEOUT_MS } from './helpers.js';
import type { TempRepo } from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const made of repos.splice(0)) made.remove();
});

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

/**
 * Checks the file out and rewrites it with content of the same size within the same second,
 * as a fast agent ticking a task box does: the index's cached stat then still matches the
 * file. Tries again when the second rolled over in between. Returns that second.
 */
function checkoutThenSameSizeEdit(r: TempRepo, path: string, edited: string): number {
  for (let tries = 0; tries < 20; tries++) {
    r.git('rm', '-q', '--cached', path);
    r.git('reset', '-q', '--hard', 'HEAD');
    writeFileSync(join(r.dir, path), edited);
    const file = statSync(join(r.dir, path));
    const index = statSync(join(r.dir, '.git', 'index'));
    const second = Math.floor(index.mtimeMs / 1000);
    if (Math.floor(file.ctimeMs / 1000) === second && Math.floor(file.mtimeMs / 1000) === second) {
      return second;
    }
  }
  throw new Error('could not edit the file in the same second as the checkout');
}

/** The work tree as a tree object, from the real index's stats, as a revert saves it. */
function snapshotAsARevertDoes(r: TempRepo): Promise<string> {
  return snapshotWorkTree(
    { baseEnv: process.env, cwd: r.dir, timeoutMs: TIMEOUT_MS },
    {
      scratchDir: join(r.dir, '.git'),
      startIndex: join(r.dir, '.git', 'index'),
      baseTree: r.git('rev-parse', 'HEAD^{tree}'),
    },
  );
}

describe('snapshotWorkTree', () => {
  it('saves a same-size edit made in the same second as the checkout, even seconds later', async () => {
    const r = makeRepo();
    repos.push(r);
    r.write('tasks.md', '- [ ] 1.1 do it\n');
    r.git('add', '-A');
    r.git('commit', '-q', '-m', 'tasks');
    const second = checkoutThenSameSizeEdit(r, 'tasks.md', '- [x] 1.1 do it\n');
    // The snapshot is taken in a later second than the checkout (the attempt ran a while).
    while (Date.now() < (second + 1) * 1000 + 50) await sleep(50);

    const tree = await snapshotAsARevertDoes(r);

    expect(r.git('cat-file', '-p', `${tree}:tasks.md`)).toBe('- [x] 1.1 do it');
    // The real index was left alone: git still sees the edit as unstaged.
    expect(r.git('status', '--porcelain')).toBe(' M tasks.md');
  });

  it('leaves no shared index file behind in a repository with core.splitIndex', async () => {
    const r = makeRepo();
    repos.push(r);
    r.git('config', 'core.splitIndex', 'true');
    r.write('a.txt', 'a\n');
    r.git('add', '-A');
    r.git('commit', '-q', '-m', 'a');
    const sharedIndexes = (): string[] =>
      readdirSync(join(r.dir, '.git')).filter((name) => name.startsWith('sharedindex.'));
    const before = sharedIndexes();
    expect(before).not.toEqual([]);
    r.write('a.txt', 'changed\n');
    r.write('new.txt', 'new\n');

    const tree = await snapshotAsARevertDoes(r);

    expect(r.git('cat-file', '-p', `${tree}:a.txt`)).toBe('changed');
    expect(r.git('cat-file', '-p', `${tree}:new.txt`)).toBe('new');
    expect(sharedIndexes()).toEqual(before);
  });
});
