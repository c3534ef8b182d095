import { afterEach, describe, expect, it } from 'vitest';
import { headPosition } from '../../src/git/repo.js';
import { headAndCleanliness } from '../../src/git/status.js';
import { makeRepo, TIMEOUT_MS } from './helpers.js';
import type { TempRepo } from './helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const made of repos.splice(0)) made.remove();
});

function repo(opts: Parameters<typeof makeRepo>[0] = {}): TempRepo {
  const made = makeRepo(opts);
  repos.push(made);
  return made;
}

/** The one-process answer must be the one the separate commands give. */
async function check(r: TempRepo): Promise<{ head: unknown; clean: boolean }> {
  const ctx = { baseEnv: process.env, cwd: r.dir, timeoutMs: TIMEOUT_MS };
  const result = await headAndCleanliness(ctx);
  expect(result.head).toEqual(await headPosition(ctx));
  return result;
}

describe('headAndCleanliness', () => {
  it('on a branch: its name and commit; clean until a file changes or appears', async () => {
    const r = repo();
    const sha = r.git('rev-parse', 'HEAD');
    expect(await check(r)).toEqual({ head: { kind: 'branch', name: 'main', sha }, clean: true });
    r.write('new.txt', 'x\n');
    expect((await check(r)).clean).toBe(false);
    r.git('add', 'new.txt');
    expect((await check(r)).clean).toBe(false);
    r.git('commit', '-q', '-m', 'new');
    r.write('README.md', 'changed\n');
    expect((await check(r)).clean).toBe(false);
  });

  it('detached, unborn, and a branch name with slashes', async () => {
    const r = repo();
    const sha = r.git('rev-parse', 'HEAD');
    r.git('checkout', '-q', '--detach');
    expect((await check(r)).head).toEqual({ kind: 'detached', sha });
    r.git('checkout', '-q', '-b', 'ralph/add-auth');
    expect((await check(r)).head).toEqual({ kind: 'branch', name: 'ralph/add-auth', sha });
    const empty = repo({ commit: false });
    expect(await check(empty)).toEqual({ head: { kind: 'unborn', name: 'main' }, clean: true });
  });

  it('ignored files do not count', async () => {
    const r = repo();
    r.write('.gitignore', '.env\n');
    r.git('add', '.gitignore');
    r.git('commit', '-q', '-m', 'ignore');
    r.write('.env', 'SECRET=1\n');
    expect((await check(r)).clean).toBe(true);
  });
});
