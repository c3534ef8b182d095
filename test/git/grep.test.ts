import { afterEach, describe, expect, it } from 'vitest';
import { pathsChangedBy, pathsHolding } from '../../src/git/grep.js';
import { makeTempRepo, type TempRepo } from '../support/temp-repo.js';

let repo: TempRepo | undefined;
afterEach(() => {
  repo?.remove();
  repo = undefined;
});

const ctx = (dir: string) => ({ cwd: dir, timeoutMs: 30_000, baseEnv: process.env });
const SECRET = 'sk_live_0123456789abcdef';

describe('reading a commit for secret values (git grep, needles on stdin)', () => {
  it('finds only the changed files that hold one, names with wildcards and spaces taken literally', async () => {
    const r = (repo = makeTempRepo({ 'old.txt': `${SECRET}\n` }));
    r.write('*.ts', `const k = '${SECRET}';\n`);
    r.write('a b.txt', `x ${SECRET} y\n`);
    r.write('clean.ts', 'nothing here\n');
    r.write('blob.bin', `\0binary ${SECRET}`);
    r.git('add', '-A');
    r.git('commit', '-q', '-m', 'attempt');
    const commit = r.git('rev-parse', 'HEAD').trim();

    const changed = await pathsChangedBy(ctx(r.dir), commit);
    expect(changed.sort()).toEqual(['*.ts', 'a b.txt', 'blob.bin', 'clean.ts']);
    // old.txt holds it too, but the commit did not change it; binary files are not read.
    const found = await pathsHolding(ctx(r.dir), commit, changed, ['unrelated-value', SECRET]);
    expect(found.sort()).toEqual(['*.ts', 'a b.txt']);
    expect(await pathsHolding(ctx(r.dir), commit, ['clean.ts'], [SECRET])).toEqual([]);
    expect(await pathsHolding(ctx(r.dir), commit, changed, [])).toEqual([]);
  });
});
