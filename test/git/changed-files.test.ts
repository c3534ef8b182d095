import { mkdirSync, statSync, unlinkSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  changedFilesSince,
  changedFromDiff,
  changedFromStatus,
} from '../../src/git/changed-files.js';
import type { GitContext } from '../../src/git/git.js';
import { cleanGitEnv, makeTempRepo, type TempRepo } from '../support/temp-repo.js';

// What an attempt changed since its checkpoint (the test gate reads it; `run --push` screens it
// for secrets) is one `git status` when HEAD is at the checkpoint. Every shape of change an agent
// can leave must read the same as the diff + untracked listing it replaced, which stays the
// answer when HEAD moved.

let repo: TempRepo;
afterEach(() => repo.remove());

function start(): { ctx: GitContext; checkpoint: string } {
  repo = makeTempRepo({
    'src/a.ts': 'a\n',
    'src/b.ts': 'b\n',
    'test/a.test.ts': 'it("a", () => {});\n'.repeat(20),
    'with space.txt': 'space\n',
    'gone.txt': 'gone\n',
  });
  const ctx: GitContext = { cwd: repo.dir, timeoutMs: 30_000, baseEnv: cleanGitEnv() };
  return { ctx, checkpoint: repo.git('rev-parse', 'HEAD').trim() };
}

const shapes: [string, (r: TempRepo) => void][] = [
  ['nothing', () => undefined],
  ['a modified file', (r) => r.write('src/a.ts', 'changed\n')],
  ['a deleted file', (r) => unlinkSync(path.join(r.dir, 'gone.txt'))],
  ['a deletion staged', (r) => r.git('rm', '-q', 'gone.txt')],
  ['a file untracked the git way', (r) => r.git('rm', '-q', '--cached', 'src/b.ts')],
  [
    'new untracked files, one in a new folder',
    (r) => {
      r.write('src/new.ts', 'new\n');
      r.write('deep/er/file.txt', 'x\n');
    },
  ],
  [
    'a new file staged',
    (r) => {
      r.write('src/staged.ts', 'staged\n');
      r.git('add', 'src/staged.ts');
    },
  ],
  [
    'a new file staged, then deleted',
    (r) => {
      r.write('src/brief.ts', 'brief\n');
      r.git('add', 'src/brief.ts');
      unlinkSync(path.join(r.dir, 'src/brief.ts'));
    },
  ],
  ['a test moved with git mv', (r) => r.git('mv', 'test/a.test.ts', 'test/moved.test.ts')],
  [
    'a test moved with git mv, then edited',
    (r) => {
      r.git('mv', 'test/a.test.ts', 'test/moved.test.ts');
      r.write('test/moved.test.ts', 'it("a", () => {});\n'.repeat(19));
    },
  ],
  [
    'a test moved with git mv, then deleted',
    (r) => {
      r.git('mv', 'test/a.test.ts', 'test/moved.test.ts');
      unlinkSync(path.join(r.dir, 'test/moved.test.ts'));
    },
  ],
  [
    'a test moved without git (deleted + untracked)',
    (r) => {
      r.write('test/elsewhere.test.ts', 'it("a", () => {});\n'.repeat(20));
      unlinkSync(path.join(r.dir, 'test/a.test.ts'));
    },
  ],
  [
    'names with spaces, quotes and a newline',
    (r) => {
      r.write('with space.txt', 'changed\n');
      r.write('new "quoted" file.txt', 'q\n');
      r.write('line\nbreak.txt', 'n\n');
    },
  ],
  [
    'a modification staged and another on top',
    (r) => {
      r.write('src/a.ts', 'one\n');
      r.git('add', 'src/a.ts');
      r.write('src/a.ts', 'two\n');
    },
  ],
  [
    'a nested repository',
    (r) => {
      mkdirSync(path.join(r.dir, 'inner'));
      writeFileSync(path.join(r.dir, 'inner/file.txt'), 'inner\n');
      r.git('-C', 'inner', 'init', '-q');
    },
  ],
  [
    'an ignored file',
    (r) => {
      r.write('.gitignore', 'dist/\n');
      r.write('dist/out.js', 'built\n');
    },
  ],
];

describe('changed files since the checkpoint', () => {
  it.each(shapes)('%s: one git status reads as the diff and the listing', async (_, make) => {
    const { ctx, checkpoint } = start();
    make(repo);
    const fromDiff = await changedFromDiff(ctx, checkpoint);
    expect(await changedFromStatus(ctx, checkpoint)).toEqual(fromDiff);
    expect(await changedFilesSince(ctx, checkpoint)).toEqual(fromDiff);
  });

  it('after the agent committed (HEAD moved), the diff against the checkpoint still answers', async () => {
    const { ctx, checkpoint } = start();
    repo.write('src/a.ts', 'committed\n');
    repo.git('commit', '-qam', 'the agent committed');
    repo.write('src/c.ts', 'untracked\n');
    expect(await changedFromStatus(ctx, checkpoint)).toBeNull();
    const changed = await changedFilesSince(ctx, checkpoint);
    expect(changed).toEqual([
      { status: 'M', path: 'src/a.ts' },
      { status: 'A', path: 'src/c.ts' },
    ]);
  });

  it('reads without writing the index (its print decides the accept’s fast path)', async () => {
    const { ctx, checkpoint } = start();
    // A touched file whose content is the same: a status that refreshed would rewrite the index.
    writeFileSync(path.join(repo.dir, 'src/a.ts'), 'a\n');
    const index = path.join(repo.dir, '.git/index');
    const before = statSync(index).mtimeMs;
    await changedFilesSince(ctx, checkpoint);
    expect(statSync(index).mtimeMs).toBe(before);
  });
});
