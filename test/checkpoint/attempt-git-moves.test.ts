import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CheckpointRun } from '../../src/checkpoint/checkpoint.js';
import { startRun } from '../../src/checkpoint/start.js';
import { NO_FIGURES } from '../../src/checkpoint/records.js';
import { makeRepo, runLocation, snapshotFiles, type TempRepo } from '../git/helpers.js';

/**
 * An attempt as the loop runs it: the check at the checkpoint first (which remembers what the
 * git directory looked like, checkpoint/git-dir-watch.ts), then whatever the agent does, then
 * the accept or the revert. Whether the agent's git commands left HEAD, the branch and the
 * index alone decides how much git the accept and the revert run; the outcome must be the
 * same for every way an agent can touch them, with git or by hand.
 */

const repos: TempRepo[] = [];
afterEach(() => {
  for (const made of repos.splice(0)) made.remove();
});

const BRANCH = 'ralph/add-auth';

async function atAttempt(): Promise<{ r: TempRepo; run: CheckpointRun; checkpoint: string }> {
  const r = makeRepo();
  repos.push(r);
  r.write('.gitignore', '.env\nnode_modules/\n');
  r.write('lib.txt', 'lib\n');
  r.write('.env', 'SECRET=1\n');
  r.git('add', '-A');
  r.git('commit', '-q', '-m', 'base');
  const run = await startRun(runLocation(r.dir, 'add-auth'));
  await run.ensureAtCheckpoint();
  return { r, run, checkpoint: run.checkpointSha };
}

/** The agent's work in files: an edit, a new file, a deletion, a new folder. */
function agentFiles(r: TempRepo): void {
  r.write('lib.txt', 'lib, changed by the agent\n');
  r.write('src/new.txt', 'new\n');
  rmSync(join(r.dir, 'README.md'));
}

/** Ways an agent touches HEAD, the branch or the index, besides writing files. */
const MOVES: [string, (r: TempRepo) => void][] = [
  ['nothing but files', () => undefined],
  ['`git status` (the index refreshed)', (r) => r.git('status')],
  ['`git add -A`', (r) => r.git('add', '-A')],
  ['`git add -f .env` (a secret staged)', (r) => r.git('add', '-f', '.env')],
  ['a commit', (r) => (r.git('add', '-A'), r.git('commit', '-q', '-m', 'agent'))],
  [
    'a commit, then `reset --soft` back',
    (r) => {
      r.git('add', '-A');
      r.git('commit', '-q', '-m', 'agent');
      r.git('reset', '-q', '--soft', 'HEAD~1');
    },
  ],
  ['a switch to a new branch', (r) => r.git('switch', '-q', '-c', 'agent-side')],
  ['a detached HEAD', (r) => r.git('switch', '-q', '--detach')],
  ['`git pack-refs --all --prune`', (r) => r.git('pack-refs', '--all', '--prune')],
  [
    'the branch moved by writing its ref file by hand',
    (r) => {
      const other = r.git('commit-tree', '-m', 'elsewhere', 'HEAD^{tree}', '-p', 'HEAD');
      writeFileSync(join(r.dir, '.git/refs/heads', BRANCH), `${other}\n`);
    },
  ],
  [
    'a MERGE_HEAD written by hand',
    (r) => writeFileSync(join(r.dir, '.git/MERGE_HEAD'), `${r.git('rev-parse', 'main')}\n`),
  ],
];

describe('an accept, whatever the agent did to HEAD, the branch and the index', () => {
  it.each(MOVES)(
    '%s: one commit of the work tree on the checkpoint, no secret',
    async (_, move) => {
      const { r, run, checkpoint } = await atAttempt();
      agentFiles(r);
      move(r);
      const sha = await run.acceptStory('1', NO_FIGURES);
      expect(r.git('symbolic-ref', 'HEAD')).toBe(`refs/heads/${BRANCH}`);
      expect(r.git('rev-parse', 'HEAD')).toBe(sha);
      expect(r.git('rev-list', '--parents', '-n1', sha).split(' ').slice(1)).toEqual([checkpoint]);
      expect(r.git('ls-tree', '-r', '--name-only', sha).split('\n').sort()).toEqual([
        '.gitignore',
        'lib.txt',
        'src/new.txt',
      ]);
      expect(r.git('show', `${sha}:lib.txt`)).toBe('lib, changed by the agent');
      expect(existsSync(join(r.dir, '.git/MERGE_HEAD'))).toBe(false);
      expect(r.read('.env')).toBe('SECRET=1\n');
      // The next attempt starts from the new checkpoint without a repair.
      expect(await run.ensureAtCheckpoint()).toMatchObject({ repaired: false });
      expect(r.git('status', '--porcelain', '--untracked-files=all')).toBe('');
    },
  );
});

describe('a revert, whatever the agent did to HEAD, the branch and the index', () => {
  it.each(MOVES)('%s: back at the checkpoint, the work saved, no secret', async (_, move) => {
    const { r, run, checkpoint } = await atAttempt();
    const atCheckpoint = snapshotFiles(r.dir);
    agentFiles(r);
    mkdirSync(join(r.dir, 'empty-dir'));
    move(r);
    const { savedRef } = await run.revert('1', 1);
    expect(r.git('symbolic-ref', 'HEAD')).toBe(`refs/heads/${BRANCH}`);
    expect(r.git('rev-parse', 'HEAD')).toBe(checkpoint);
    expect(r.git('status', '--porcelain', '--untracked-files=all')).toBe('');
    expect(snapshotFiles(r.dir)).toEqual(atCheckpoint);
    expect(existsSync(join(r.dir, 'empty-dir'))).toBe(false);
    expect(r.git('show', `${savedRef}:lib.txt`)).toBe('lib, changed by the agent');
    expect(r.git('show', `${savedRef}:src/new.txt`)).toBe('new');
    expect(r.gitStatus('cat-file', '-e', `${savedRef}:.env`)).not.toBe(0);
    expect(await run.ensureAtCheckpoint()).toMatchObject({ repaired: false });
  });
});

describe('a revert of files only the attempt ignored', () => {
  it('saves the files its own .gitignore hid, then cleans them and the .gitignore', async () => {
    const { r, run, checkpoint } = await atAttempt();
    r.write('build/.gitignore', '*.out\n');
    r.write('build/result.out', 'hidden\n');
    r.write('logs.txt', 'seen\n');
    r.write('.gitignore', '.env\nnode_modules/\nlogs-ignored.txt\n');
    r.write('logs-ignored.txt', 'hidden by a tracked .gitignore edit\n');
    const { savedRef } = await run.revert('1', 1);
    expect(r.git('rev-parse', 'HEAD')).toBe(checkpoint);
    expect(r.git('status', '--porcelain', '--untracked-files=all')).toBe('');
    for (const path of ['build/result.out', 'logs.txt', 'logs-ignored.txt', 'build/.gitignore']) {
      expect(existsSync(join(r.dir, path))).toBe(false);
      expect(r.gitStatus('cat-file', '-e', `${savedRef}:${path}`)).toBe(0);
    }
  });
});

describe('a secret the attempt un-ignored, whatever it did to HEAD, the branch and the index', () => {
  /** The attempt drops `.env` from .gitignore: `add -A` would take the secret. */
  const unignore = (r: TempRepo): void => r.write('.gitignore', 'node_modules/\n');

  it.each(MOVES)('%s: the accept leaves .env out of the checkpoint', async (_, move) => {
    const { r, run } = await atAttempt();
    agentFiles(r);
    unignore(r);
    move(r);
    const sha = await run.acceptStory('1', NO_FIGURES);
    expect(r.gitStatus('cat-file', '-e', `${sha}:.env`)).not.toBe(0);
    expect(r.git('ls-files', '--', '.env')).toBe('');
    expect(r.read('.env')).toBe('SECRET=1\n');
    expect(run.takeNotices().join('\n')).toMatch(/\.env: ignored when the run started/);
  });

  it.each(MOVES)('%s: the revert leaves .env out of the save and on disk', async (_, move) => {
    const { r, run } = await atAttempt();
    agentFiles(r);
    unignore(r);
    move(r);
    const { savedRef } = await run.revert('1', 1);
    expect(r.gitStatus('cat-file', '-e', `${savedRef}:.env`)).not.toBe(0);
    expect(r.git('show', `${savedRef}:.gitignore`)).toBe('node_modules/');
    expect(r.read('.env')).toBe('SECRET=1\n');
    expect(r.read('.gitignore')).toBe('.env\nnode_modules/\n');
  });
});
