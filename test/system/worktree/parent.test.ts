import { existsSync, mkdirSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RunFixture, stories, succeed } from '../../run/helpers.js';

// --worktree-parent (and the `worktree-parent` setting): where the run worktrees are made.

const CHANGE = 'add-widgets';
let fixture: RunFixture | undefined;
const made: string[] = [];
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function fixtureWithOneStory(): RunFixture {
  fixture = new RunFixture(CHANGE, stories(1, 1)).scenario({
    '1-1': succeed('src/one.txt', 'one\n'),
  });
  return fixture;
}

/** Where the agent worked: the working folder it was started in (gone once the run ended). */
function agentCwd(f: RunFixture): string {
  const invocation = JSON.parse(
    readFileSync(path.join(f.logDir, 'invocation-1-1.json'), 'utf8'),
  ) as { cwd: string };
  return invocation.cwd;
}

/** A folder outside the fixture's repository, removed after the test. */
function folderBeside(f: RunFixture, name: string): string {
  const dir = path.join(path.dirname(f.dir), `${path.basename(f.dir)}-${name}`);
  made.push(dir);
  return dir;
}

describe('--worktree-parent: the folder the run worktrees are made in', () => {
  it('a flag: the worktree is <dir>/<repo>.ralph/<change>, kept there with --keep-worktree', async () => {
    const f = fixtureWithOneStory();
    const parent = folderBeside(f, 'worktrees');
    const result = await f.run([
      '--worktree',
      '--worktree-parent',
      parent,
      '--on-complete',
      'keep',
      '--keep-worktree',
    ]);
    expect(result.exitCode).toBe(0);
    const worktree = path.join(parent, `${path.basename(f.dir)}.ralph`, CHANGE);
    expect(agentCwd(f)).toBe(
      path.join(realpathSync(parent), `${path.basename(f.dir)}.ralph`, CHANGE),
    );
    expect(readFileSync(path.join(worktree, 'src/one.txt'), 'utf8')).toBe('one\n');
    expect(f.git('worktree', 'list', '--porcelain')).toContain(worktree);
    // Nothing beside the repository, where the worktrees go by default.
    expect(existsSync(`${f.dir}.ralph`)).toBe(false);
  });

  it('the setting, relative to the repository top: the work comes home and the empty <repo>.ralph goes, the parent stays', async () => {
    const f = fixtureWithOneStory();
    const parent = folderBeside(f, 'elsewhere');
    mkdirSync(path.join(f.dir, '.ralphtool'), { recursive: true });
    writeFileSync(
      path.join(f.dir, '.ralphtool/config.yaml'),
      `worktree-parent: ../${path.basename(parent)}\n`,
    );
    mkdirSync(path.join(f.dir, 'sub'));
    writeFileSync(path.join(f.dir, 'sub/readme.txt'), 'a subfolder\n');
    f.git('add', '.ralphtool', 'sub');
    f.git('commit', '-q', '-m', 'settings');
    // Started from a subfolder: the file's relative path still starts at the repository's top.
    const result = await f.run(['--worktree', '--on-complete', 'cleanup', '-C', 'sub']);
    expect(result.exitCode).toBe(0);
    expect(agentCwd(f)).toBe(
      path.join(realpathSync(parent), `${path.basename(f.dir)}.ralph`, CHANGE),
    );
    expect(readFileSync(path.join(f.dir, 'src/one.txt'), 'utf8')).toBe('one\n');
    expect(existsSync(path.join(parent, `${path.basename(f.dir)}.ralph`))).toBe(false);
    expect(existsSync(parent)).toBe(true);
  });

  it('refuses a folder inside the work tree before anything is made (exit 2, one line)', async () => {
    const f = fixtureWithOneStory();
    const before = f.git('status', '--porcelain', '--ignored');
    const result = await f.run(['--worktree', '--worktree-parent', 'build/wt']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      `ralphtool: --worktree-parent ${path.join(realpathSync(f.dir), 'build/wt')} is inside your work tree ${realpathSync(f.dir)}: the worktrees would be part of it (your tests, linters and git clean would see them); name a folder outside it`,
    ]);
    expect(f.git('status', '--porcelain', '--ignored')).toBe(before);
    expect(f.git('branch', '--list', 'ralph/*')).toBe('');
    expect(existsSync(path.join(f.dir, 'build'))).toBe(false);
  });
});
