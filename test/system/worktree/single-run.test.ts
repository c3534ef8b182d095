import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunFixture, stories, succeed } from '../../run/helpers.js';

const CHANGE = 'add-widgets';
let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe('run --worktree: one change in a worktree of its own', () => {
  it('leaves the user work tree, index and branch alone and keeps the stories on ralph/<change>', async () => {
    fixture = new RunFixture(CHANGE, stories(2, 1)).scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
      '2-1': succeed('src/two.txt', 'two\n'),
    });
    // The user's own uncommitted work, which stays out of the run.
    writeFileSync(path.join(fixture.dir, 'notes.txt'), 'mine\n');
    const statusBefore = fixture.git('status', '--porcelain');
    const mainBefore = fixture.git('rev-parse', 'main').trim();

    const result = await fixture.run(['--worktree', '--on-complete', 'keep', '--keep-worktree']);
    expect(result.stderr).toContain('not part of the run');
    expect(result.exitCode).toBe(0);

    const worktree = `${fixture.dir}.ralph/${CHANGE}`;
    expect(existsSync(path.join(worktree, 'src/one.txt'))).toBe(true);
    expect(fixture.git('status', '--porcelain')).toBe(statusBefore);
    expect(fixture.git('symbolic-ref', 'HEAD').trim()).toBe('refs/heads/main');
    expect(fixture.git('rev-parse', 'main').trim()).toBe(mainBefore);
    expect(readFileSync(path.join(fixture.dir, 'notes.txt'), 'utf8')).toBe('mine\n');
    expect(existsSync(path.join(fixture.dir, 'src/one.txt'))).toBe(false);
    const log = fixture.git('log', '--format=%s', `ralph/${CHANGE}`).trim().split('\n');
    expect(log.slice(0, 3)).toEqual(['checkpoint: 2', 'checkpoint: 1', 'initial state']);
  });
});
