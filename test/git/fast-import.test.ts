import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { committerIdent, importCommit } from '../../src/git/fast-import.js';
import { GitError } from '../../src/git/git-error.js';
import type { GitContext } from '../../src/git/git.js';
import { TIMEOUT_MS, cleanEnv, repoPerTest } from './helpers.js';

// One commit written by one `git fast-import` (the remote's record, git/fast-import.ts): the
// tree is exactly the files given, byte for byte, whatever their names and contents; the ref
// moves only from the parent given; blobs already written are named, not sent again. Real git.

const makeRepo = repoPerTest();
const REF = 'refs/ralphtool/c/record';

function context(dir: string, env: Record<string, string> = {}): GitContext {
  return { cwd: dir, timeoutMs: TIMEOUT_MS, baseEnv: cleanEnv(env) };
}

const bytes = (text: string): Buffer => Buffer.from(text);

describe('a commit written by fast-import', () => {
  it('holds exactly the files given, byte for byte, in folders, whatever their names', async () => {
    const repo = makeRepo();
    const ctx = context(repo.dir);
    const odd = [
      'plain.md',
      'with space.md',
      'quote"and\\backslash.md',
      'tab\there.md',
      'new\nline.md',
      'ünïcödé.md',
      '"leading-quote.md',
      'trailing-space.md ',
    ];
    const binary = Buffer.from([0, 1, 2, 255, 10, 13, 0]);
    const files = [
      { path: 'state.json', data: bytes('{"a":1}\n') },
      { path: 'empty.txt', data: Buffer.alloc(0) },
      { path: 'bin.dat', data: binary },
      { path: 'no-newline-at-end', data: bytes('data 3\nM 100644 x y') },
      ...odd.map((name, i) => ({ path: `prompts/${name}`, data: bytes(`prompt ${i}\n`) })),
    ];
    const ident = await committerIdent(ctx);
    const written = await importCommit(
      ctx,
      { ref: REF, parent: null, message: 'first record\n\nbody', files, committer: ident },
      'could not write',
    );
    expect(repo.git('rev-parse', REF)).toBe(written.commit);
    expect(repo.git('log', '-1', '--format=%B', REF)).toBe('first record\n\nbody');
    const listed = repo
      .git('ls-tree', '-r', '-z', '--name-only', REF)
      .split('\0')
      .filter((n) => n !== '');
    expect(listed.sort()).toEqual(files.map((f) => f.path).sort());
    for (const [i, file] of files.entries()) {
      const blob = repo.git('rev-parse', `${REF}:${file.path}`);
      expect(written.blobs[i]).toBe(blob);
      const content = execBytes(repo.dir, ['cat-file', 'blob', blob]);
      expect(content.equals(file.data)).toBe(true);
    }
  });

  it('has the parent given, keeps nothing of its tree, and names blobs written before by id', async () => {
    const repo = makeRepo();
    const ctx = context(repo.dir);
    const committer = await committerIdent(ctx);
    const first = await importCommit(
      ctx,
      {
        ref: REF,
        parent: null,
        message: 'one',
        files: [
          { path: 'a.md', data: bytes('a\n') },
          { path: 'gone/b.md', data: bytes('b\n') },
        ],
        committer,
      },
      'could not write',
    );
    const second = await importCommit(
      ctx,
      {
        ref: REF,
        parent: first.commit,
        message: 'two',
        files: [{ path: 'again/a.md', blob: first.blobs[0] ?? '' }],
        committer,
      },
      'could not write',
    );
    expect(repo.git('rev-parse', `${REF}^`)).toBe(first.commit);
    expect(repo.git('ls-tree', '-r', '--name-only', second.commit)).toBe('again/a.md');
    expect(repo.git('show', `${second.commit}:again/a.md`)).toBe('a');
    expect(second.blobs).toEqual([first.blobs[0]]);
  });

  it('moves the ref only from the parent given: a ref moved meanwhile is refused and left', async () => {
    const repo = makeRepo();
    const ctx = context(repo.dir);
    const committer = await committerIdent(ctx);
    const files = [{ path: 'a.md', data: bytes('a\n') }];
    const first = await importCommit(
      ctx,
      { ref: REF, parent: null, message: 'one', files, committer },
      'could not write',
    );
    // Someone else's commit on the ref, not a descendant of what the writer thinks is there.
    const elsewhere = repo.git('commit-tree', 'HEAD^{tree}', '-m', 'elsewhere');
    repo.git('update-ref', REF, elsewhere);
    await expect(
      importCommit(ctx, { ref: REF, parent: first.commit, message: 'two', files, committer }, 'x'),
    ).rejects.toBeInstanceOf(GitError);
    expect(repo.git('rev-parse', REF)).toBe(elsewhere);
    // A ref believed absent that exists is refused the same way.
    await expect(
      importCommit(ctx, { ref: REF, parent: null, message: 'three', files, committer }, 'x'),
    ).rejects.toBeInstanceOf(GitError);
    expect(repo.git('rev-parse', REF)).toBe(elsewhere);
  });

  it("commits as git would: its environment's identity first, then the config, then the fallback", async () => {
    const configured = makeRepo();
    expect(await committerIdent(context(configured.dir))).toBe('Test User <test@example.com>');
    const fromEnv = context(configured.dir, {
      GIT_COMMITTER_NAME: 'Env Person',
      GIT_COMMITTER_EMAIL: 'env@example.com',
    });
    expect(await committerIdent(fromEnv)).toBe('Env Person <env@example.com>');
    const home = mkdtempSync(join(tmpdir(), 'ralphtool-home-'));
    try {
      const env = { HOME: home, XDG_CONFIG_HOME: home };
      const none = makeRepo({ identity: false, commit: false, env });
      expect(await committerIdent(context(none.dir, env))).toBe('ralphtool <ralphtool@localhost>');
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  });
});

function execBytes(cwd: string, args: string[]): Buffer {
  // Raw bytes of a git command's stdout (the helper trims text).
  return execFileSync('git', args, { cwd, env: cleanEnv() });
}
