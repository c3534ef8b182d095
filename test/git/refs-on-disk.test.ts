import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { refsOnDisk } from '../../src/git/on-disk.js';
import { repoPerTest, type TempRepo } from './helpers.js';

// Refs read from the git directory's files (git/on-disk.ts, `refsOnDisk`) say what `git for-each-ref`
// says, however git keeps them (loose, packed, both, nested, deleted), or nothing at all
// (undefined) where only git can tell. Real git makes every layout.

const makeRepo = repoPerTest();
const PREFIX = 'refs/ralphtool/c/attempts/';
const NAMES = ['refs/heads/ralph/c', 'refs/ralphtool/c/record', 'refs/ralphtool/c/progress'];

function gitSays(repo: TempRepo): Map<string, string> {
  const out = repo.git('for-each-ref', '--format=%(refname) %(objectname)', ...NAMES, PREFIX);
  const refs = new Map<string, string>();
  for (const line of out.split('\n').filter((l) => l !== '')) {
    const [name = '', sha = ''] = line.split(' ');
    refs.set(name, sha);
  }
  return refs;
}

const disk = (repo: TempRepo): Promise<Map<string, string> | undefined> =>
  refsOnDisk(join(repo.dir, '.git'), NAMES, [PREFIX]);

/** A commit of its own for each ref, so that a wrong pairing shows. */
function commit(repo: TempRepo, n: number): string {
  return repo.git('commit-tree', 'HEAD^{tree}', '-p', 'HEAD', '-m', `c${n}`);
}

describe('refs read from the git directory', () => {
  it('say what for-each-ref says, loose, packed, both, nested or deleted', async () => {
    const repo = makeRepo();
    expect(await disk(repo)).toEqual(gitSays(repo)); // none at all
    let n = 0;
    const set = (ref: string): void => {
      repo.git('update-ref', ref, commit(repo, (n += 1)));
    };
    set('refs/heads/ralph/c');
    set('refs/ralphtool/c/record');
    set(`${PREFIX}1-1`);
    set(`${PREFIX}2.1-3`);
    set(`${PREFIX}nested/deeper/4-1`);
    set('refs/ralphtool/c/other'); // outside what is asked
    set('refs/ralphtool/d/attempts/1-1'); // another change's
    expect(await disk(repo)).toEqual(gitSays(repo));
    repo.git('pack-refs', '--all');
    expect(await disk(repo)).toEqual(gitSays(repo)); // all packed
    set(`${PREFIX}1-1`); // loose again, over its packed line
    set(`${PREFIX}5-1`);
    set('refs/ralphtool/c/progress');
    expect(await disk(repo)).toEqual(gitSays(repo));
    repo.git('update-ref', '-d', `${PREFIX}2.1-3`); // packed only, deleted
    repo.git('update-ref', '-d', `${PREFIX}1-1`); // loose and packed, deleted
    repo.git('update-ref', '-d', 'refs/ralphtool/c/progress'); // loose only, deleted
    expect(await disk(repo)).toEqual(gitSays(repo));
    expect((await disk(repo))?.size).toBe(4);
  });

  it('give nothing where only git can tell: a symbolic ref, a reftable, a file that holds no sha', async () => {
    const repo = makeRepo();
    repo.git('symbolic-ref', 'refs/ralphtool/c/record', 'refs/heads/main');
    expect(await disk(repo)).toBeUndefined();
    const other = makeRepo();
    mkdirSync(join(other.dir, '.git', PREFIX), { recursive: true });
    writeFileSync(join(other.dir, '.git', PREFIX, '1-1'), 'not a sha\n');
    expect(await disk(other)).toBeUndefined();
    const table = makeRepo();
    mkdirSync(join(table.dir, '.git', 'reftable'));
    writeFileSync(join(table.dir, '.git', 'reftable', 'tables.list'), '');
    expect(await disk(table)).toBeUndefined();
  });
});
