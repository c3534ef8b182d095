import {
  chmodSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentFlags, ALL_SUCCEED, FaultWorld, type Step } from './support/world.js';

// The agent rewrites the repository's own config so that git would work elsewhere
// (core.worktree), refuse to work (core.bare), or start its programs on ralphtool's next git
// command (hooks, a clean filter, an fsmonitor hook). The engine's git runs with the git dir
// and work tree pinned, fsmonitor off and hooks off, and before acting it puts the config back
// (saving the agent's version in the run folder) and says so: no program of the agent runs,
// no file moves elsewhere, and the run goes on.

const CHANGE = 'repo-config';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

/** An executable script in the scratch folder that leaves `marker` when run. */
function markerScript(w: FaultWorld, name: string, marker: string, tail = ''): string {
  const file = path.join(w.scratch, name);
  writeFileSync(file, `#!/bin/sh\necho "$0 $*" >> '${marker}'\n${tail}`);
  chmodSync(file, 0o755);
  return file;
}

interface Tamper {
  name: string;
  /** The attempt's steps that change the config; markers are files no program may leave. */
  steps: (w: FaultWorld, marker: string) => Step[];
}

const TAMPERS: Tamper[] = [
  {
    name: 'core.worktree pointing at another folder',
    steps: (w) => {
      const elsewhere = path.join(w.scratch, 'elsewhere');
      mkdirSync(elsewhere, { recursive: true });
      return [{ git: ['config', 'core.worktree', elsewhere] }];
    },
  },
  { name: 'core.bare = true', steps: () => [{ git: ['config', 'core.bare', 'true'] }] },
  {
    name: 'core.hooksPath to hooks that leave a marker',
    steps: (w, marker) => {
      const hooks = path.join(w.scratch, 'hooks');
      mkdirSync(hooks, { recursive: true });
      for (const hook of ['pre-commit', 'post-commit', 'post-checkout', 'reference-transaction']) {
        markerScript(w, path.join('hooks', hook), marker);
      }
      return [{ git: ['config', 'core.hooksPath', hooks] }];
    },
  },
  {
    name: 'a clean filter program on every file',
    steps: (w, marker) => [
      { write: '.gitattributes', content: '* filter=evil\n' },
      { git: ['config', 'filter.evil.clean', `${markerScript(w, 'filter', marker)}; cat`] },
      { git: ['config', 'filter.evil.required', 'true'] },
    ],
  },
  {
    name: 'core.fsmonitor naming a program',
    steps: (w, marker) => [{ git: ['config', 'core.fsmonitor', markerScript(w, 'fsmon', marker)] }],
  },
  {
    name: 'an include of another config file with a hooks path',
    steps: (w, marker) => {
      const hooks = path.join(w.scratch, 'hooks');
      mkdirSync(hooks, { recursive: true });
      markerScript(w, path.join('hooks', 'post-checkout'), marker);
      const included = path.join(w.scratch, 'included.cfg');
      writeFileSync(included, `[core]\n\tfsmonitor = ${markerScript(w, 'fsmon2', marker)}\n`);
      return [{ git: ['config', 'include.path', included] }];
    },
  },
  { name: '.git/config deleted', steps: () => [{ delete: '.git/config' }] },
  {
    name: '.git/config replaced by a folder',
    steps: () => [{ delete: '.git/config' }, { mkdir: '.git/config/x' }],
  },
];

const WORK: Step[] = [
  { write: 'src/work.txt', content: 'agent work\n' },
  { append: 'docs/stable.md', content: 'agent edit\n' },
];

describe('an agent that rewrites .git/config', () => {
  it.each(TAMPERS)(
    '$name, then fails: nothing of it runs, the config is put back and reported, the retry succeeds',
    async ({ name, steps }) => {
      world = new FaultWorld(CHANGE, 2);
      const w = world;
      const configFile = path.join(w.dir, '.git/config');
      const config = readFileSync(configFile);
      const marker = path.join(w.scratch, 'marker');
      w.scenario({
        '1-1': [...WORK, ...steps(w, marker), { signal: 'FAILED: I broke the config' }],
        ...ALL_SUCCEED,
      });

      const result = await w.loop('run');
      expect(result.exitCode, result.stderr).toBe(0);
      expect(existsSync(marker), existsSync(marker) ? readFileSync(marker, 'utf8') : '').toBe(
        false,
      );
      expect(readFileSync(configFile)).toEqual(config);
      expect(w.subjects(`main..${w.branch}`)).toEqual([
        'initial state',
        'checkpoint: 1',
        'checkpoint: 2',
      ]);
      expect(w.treeFiles(w.branch)).not.toContain('src/work.txt');
      expect(w.git('show', `${w.branch}:docs/stable.md`)).toBe('stable docs\n');
      expect(w.git('show', `refs/ralphtool/${CHANGE}/attempts/1-1:src/work.txt`)).toBe(
        'agent work\n',
      );
      expect(w.status()).toEqual([]);
      expect(w.userFilesChanged()).toEqual([]);
      const elsewhere = path.join(w.scratch, 'elsewhere');
      if (existsSync(elsewhere)) expect(readdirSync(elsewhere)).toEqual([]);
      const warnings = result
        .events()
        .filter((e) => e.type === 'error' && e.fatal === false)
        .map((e) => String(e.message));
      expect(warnings).toEqual([expect.stringContaining(`${configFile}, which steers git`)]);
      // The agent's version is kept for the user to look at (unless it deleted the file).
      const saved = path.join(w.runDir, 'tampered', '1-1', 'config');
      if (name === '.git/config deleted') expect(existsSync(saved)).toBe(false);
      else if (name.includes('folder')) expect(existsSync(saved)).toBe(true);
      else expect(readFileSync(saved)).not.toEqual(config);
      expect(w.state()).toMatchObject({ status: 'finished', outcome: 'complete' });
    },
  );

  it.each(TAMPERS)(
    '$name, then completes: the checkpoint is made with the config put back',
    async ({ steps }) => {
      world = new FaultWorld(CHANGE, 1);
      const w = world;
      const configFile = path.join(w.dir, '.git/config');
      const config = readFileSync(configFile);
      const marker = path.join(w.scratch, 'marker');
      w.scenario({
        '1-1': [...WORK, ...steps(w, marker), { tick: 'all' }, { signal: 'COMPLETE' }],
      });

      const result = await w.loop('run');
      expect(result.exitCode, result.stderr).toBe(0);
      expect(existsSync(marker)).toBe(false);
      expect(readFileSync(configFile)).toEqual(config);
      expect(w.subjects(`main..${w.branch}`)).toEqual(['initial state', 'checkpoint: 1']);
      expect(w.git('show', `${w.branch}:src/work.txt`)).toBe('agent work\n');
      expect(w.status()).toEqual([]);
      // The agent's edit of docs/stable.md is its accepted work; every other user file is intact.
      expect(w.userFilesChanged()).toEqual(['content changed: docs/stable.md']);
      const saved = path.join(w.runDir, 'tampered', '1-1', 'config');
      // The agent's version is kept for the user to look at (unless it deleted the file).
      if (existsSync(saved)) expect(readFileSync(saved)).not.toEqual(config);
    },
  );

  it('config outside the repository (the global file) cannot start an fsmonitor program either', async () => {
    world = new FaultWorld(CHANGE, 2);
    const w = world;
    const global = path.join(w.scratch, 'global.gitconfig');
    writeFileSync(global, '');
    const marker = path.join(w.scratch, 'marker');
    const fsmonitor = markerScript(w, 'fsmon', marker);
    w.scenario({
      '1-1': [
        ...WORK,
        { git: ['config', '--global', 'core.fsmonitor', fsmonitor] },
        { signal: 'FAILED: I broke the global config' },
      ],
      ...ALL_SUCCEED,
    });
    const args = ['run', CHANGE, ...agentFlags(), '--json', '--on-complete', 'keep'];
    const result = await w.cli(args, { GIT_CONFIG_GLOBAL: global });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(readFileSync(global, 'utf8')).toContain('fsmonitor');
    expect(existsSync(marker)).toBe(false);
    expect(w.subjects(`main..${w.branch}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
    expect(w.status()).toEqual([]);
    expect(w.userFilesChanged()).toEqual([]);
  });
});
