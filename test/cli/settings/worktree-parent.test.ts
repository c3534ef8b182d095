import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runWorktreeDir, worktreeParentInside } from '../../../src/checkpoint/paths.js';
import { withSettings } from '../../../src/cli/settings/load.js';
import { makeTempRepo, type TempRepo } from '../../support/temp-repo.js';

// Where the run worktrees are made (--worktree-parent, the `worktree-parent` setting).

let repo: TempRepo | undefined;
afterEach(() => {
  repo?.remove();
  repo = undefined;
});

describe('runWorktreeDir and worktreeParentInside', () => {
  it('puts <repo>.ralph/<change> beside the repository, or in the parent given', () => {
    expect(runWorktreeDir('/src/app', 'add-x', null)).toBe('/src/app.ralph/add-x');
    expect(runWorktreeDir('/src/app', 'add-x', '/scratch')).toBe('/scratch/app.ralph/add-x');
  });

  it('refuses a parent inside the work tree, its top and its .git included; takes one outside', () => {
    for (const inside of ['/src/app', '/src/app/build', '/src/app/.git/wt', '/src/app/..x/wt']) {
      expect(worktreeParentInside('/src/app', inside)).toContain('is inside your work tree');
    }
    for (const outside of ['/src', '/src/app-wt', '/scratch', '/src/app/../other']) {
      expect(worktreeParentInside('/src/app', outside)).toBeNull();
    }
  });
});

describe('the worktree parent as the settings give it: always an absolute path', () => {
  const home = '/home/someone';
  const settings = async (
    cwd: string,
    file: string | null,
    flag?: string,
  ): Promise<string | undefined> => {
    const settingsFile = path.join(repo!.dir, '.ralphtool/config.yaml');
    if (file === null) rmSync(settingsFile, { force: true });
    else repo!.write('.ralphtool/config.yaml', `worktree-parent: ${file}\n`);
    const env = { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(repo!.dir, 'no-user') };
    const merged = await withSettings(
      cwd,
      env,
      flag === undefined ? {} : { worktreeParent: flag },
      'start',
    );
    return merged.flags.worktreeParent;
  };

  it('a file: relative to the repository top from any folder, ~/ the home, absolute as written', async () => {
    repo = makeTempRepo();
    const sub = path.join(repo.dir, 'a/b');
    mkdirSync(sub, { recursive: true });
    const beside = path.join(path.dirname(repo.dir), 'wt');
    expect(await settings(sub, '../wt')).toBe(beside);
    expect(await settings(repo.dir, '../wt')).toBe(beside);
    expect(await settings(sub, '~/worktrees')).toBe('/home/someone/worktrees');
    expect(await settings(sub, '/scratch/wt')).toBe('/scratch/wt');
  });

  it('a flag: relative to the folder the command works in, and it wins over the file', async () => {
    repo = makeTempRepo();
    const sub = path.join(repo.dir, 'a');
    mkdirSync(sub, { recursive: true });
    expect(await settings(sub, '../wt', '../flag-wt')).toBe(path.join(repo.dir, 'flag-wt'));
    expect(await settings(sub, null)).toBeUndefined();
  });
});
