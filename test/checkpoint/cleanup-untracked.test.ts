import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openRun } from '../../src/checkpoint/open.js';
import { startRun } from '../../src/checkpoint/start.js';
import { writeRunState } from '../../src/checkpoint/state.js';
import { NO_FIGURES } from '../../src/checkpoint/records.js';
import { printedCommands } from '../support/printed-command.js';
import { cleanEnv, makeRepo, runLocation } from '../git/helpers.js';
import type { TempRepo } from '../git/helpers.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const made of repos.splice(0)) made.remove();
});

/** A repository whose main tracks a settings file and a folder of fixtures. */
function repoTrackingSettings(): TempRepo {
  const r = makeRepo();
  repos.push(r);
  r.write('config.json', '{"shared": true}\n');
  r.write('fixtures/seed.txt', 'seed\n');
  r.write('my settings.ini', 'shared\n');
  r.write('out/a.txt', 'a\n');
  r.git('add', '-A');
  r.git('commit', '-q', '-m', 'settings');
  return r;
}

/** What a story "stop tracking the local settings" does: untrack, ignore, keep the file. */
function untrackAndIgnore(r: TempRepo, ...paths: string[]): void {
  r.git('rm', '-q', '-r', '--cached', ...paths);
  r.write('.gitignore', paths.map((p) => `${p}\n`).join(''));
}

describe('cleanup: files on disk the run stopped tracking and the original branch tracks', () => {
  it('keeps them byte for byte with their mode, and the printed command does what it says', async () => {
    const r = repoTrackingSettings();
    const run = await startRun(runLocation(r.dir, 'local-settings'));
    untrackAndIgnore(r, 'config.json', 'fixtures', 'my settings.ini');
    // The user's local values, private, in the now-ignored files.
    r.write('config.json', '{"token-file": "~/.secret"}\n');
    execFileSync('chmod', ['600', join(r.dir, 'config.json')]);
    r.write('fixtures/seed.txt', 'local seed\n');
    r.write('fixtures/local-only.bin', Buffer.from([0, 1, 2, 255]));
    await run.acceptStory('1', NO_FIGURES);
    // The story's `git rm --cached` holds: the checkpoint does not track the local values.
    expect(r.git('ls-tree', '-r', '--name-only', 'ralph/local-settings').split('\n')).toEqual([
      '.gitignore',
      'README.md',
      'out/a.txt',
    ]);

    const notice = await run.cleanup({ outcome: 'complete' });

    expect(r.read('config.json')).toBe('{"token-file": "~/.secret"}\n');
    expect(statSync(join(r.dir, 'config.json')).mode & 0o777).toBe(0o600);
    expect(r.read('fixtures/seed.txt')).toBe('local seed\n');
    expect([...readFileSync(join(r.dir, 'fixtures/local-only.bin'))]).toEqual([0, 1, 2, 255]);
    expect(r.git('symbolic-ref', '--short', 'HEAD')).toBe('main');
    expect(r.git('branch', '--list', 'ralph/*')).toBe('');
    expect(notice).toContain('config.json');
    expect(notice).toContain('fixtures/seed.txt');
    // The way to finish what the story did, run as printed.
    const [command] = printedCommands(notice ?? '', 'git');
    expect(command).toEqual([
      'rm',
      '--cached',
      '--',
      'config.json',
      'fixtures/seed.txt',
      'my settings.ini',
    ]);
    execFileSync('git', command ?? [], { cwd: r.dir, env: cleanEnv() });
    expect(r.git('status', '--porcelain', '--untracked-files=all').split('\n').sort()).toEqual([
      '?? .gitignore',
      'D  "my settings.ini"',
      'D  config.json',
      'D  fixtures/seed.txt',
    ]);
    expect(r.read('config.json')).toBe('{"token-file": "~/.secret"}\n');
  });

  it('keeps a file the story left where the original branch has a folder', async () => {
    const r = repoTrackingSettings();
    const run = await startRun(runLocation(r.dir, 'flat-out'));
    r.git('rm', '-q', '-r', 'out');
    r.write('.gitignore', 'out\n');
    r.write('out', 'generated\n');
    await run.acceptStory('1', NO_FIGURES);

    const notice = await run.cleanup({ outcome: 'complete' });

    expect(r.read('out')).toBe('generated\n');
    expect(notice).toContain('`out`');
  });

  it('a cleanup interrupted after the files were sheltered and main checked out brings them back', async () => {
    const r = repoTrackingSettings();
    const run = await startRun(runLocation(r.dir, 'local-settings'));
    untrackAndIgnore(r, 'config.json');
    r.write('config.json', 'mine\n');
    await run.acceptStory('1', NO_FIGURES);
    // The state a crash leaves right after the checkout of main: the file in the run folder.
    await writeRunState(run.paths.state, { ...run.state, step: { op: 'cleanup' } });
    const shelter = join(run.paths.dir, 'sheltered');
    mkdirSync(shelter, { recursive: true });
    writeFileSync(join(shelter, 'list.json'), '["config.json"]\n');
    renameSync(join(r.dir, 'config.json'), join(shelter, '0.file'));
    r.git('checkout', '-q', 'main');

    const reopened = await openRun(runLocation(r.dir, 'local-settings'));
    await reopened.cleanup();

    expect(r.read('config.json')).toBe('mine\n');
    expect(reopened.state).toMatchObject({ status: 'finished', choice: 'cleanup' });
  });

  it('a squash that conflicts puts them back and forgets the shelter, so a later cleanup shelters again', async () => {
    const r = repoTrackingSettings();
    const run = await startRun(runLocation(r.dir, 'local-settings'));
    untrackAndIgnore(r, 'config.json');
    r.write('config.json', 'mine\n');
    r.write('README.md', 'the story wrote this\n');
    await run.acceptStory('1', NO_FIGURES);
    // Meanwhile main got a commit of its own on the same line (made without leaving the run).
    const mainTree = r.git('rev-parse', 'main^{tree}');
    const blob = execFileSync('git', ['hash-object', '-w', '--stdin'], {
      cwd: r.dir,
      input: 'main wrote this\n',
      env: cleanEnv(),
      encoding: 'utf8',
    }).trim();
    const listing = r
      .git('ls-tree', mainTree)
      .replace(/^(100644 blob )\S+(\tREADME\.md)$/m, `$1${blob}$2`);
    const tree = execFileSync('git', ['mktree'], {
      cwd: r.dir,
      input: `${listing}\n`,
      env: cleanEnv(),
      encoding: 'utf8',
    }).trim();
    const commit = r.git('commit-tree', tree, '-p', 'main', '-m', 'main moved on');
    r.git('update-ref', 'refs/heads/main', commit);

    await expect(run.cleanup({ outcome: 'complete' })).rejects.toThrow(/conflicts/);

    expect(r.read('config.json')).toBe('mine\n');
    expect(existsSync(join(run.paths.dir, 'sheltered'))).toBe(false);
  });

  it('a tracked file only added to .gitignore stays tracked, as in git', async () => {
    const r = repoTrackingSettings();
    const run = await startRun(runLocation(r.dir, 'ignore-only'));
    r.write('.gitignore', 'config.json\n');
    r.write('config.json', '{"shared": false}\n');
    const sha = await run.acceptStory('1', NO_FIGURES);
    expect(r.git('show', `${sha}:config.json`)).toBe('{"shared": false}');
    expect(await run.cleanup({ outcome: 'complete' })).toBeNull();
    expect(r.git('status', '--porcelain')).toBe(' M config.json\n?? .gitignore');
  });

  it('a file of the user in the way of a path neither branch changed is not touched', async () => {
    const r = repoTrackingSettings();
    r.write('.gitignore', 'notes.txt\n');
    r.git('add', '.gitignore');
    r.git('commit', '-q', '-m', 'ignore notes');
    r.write('notes.txt', 'my notes\n');
    const run = await startRun(runLocation(r.dir, 'story'));
    r.write('story.txt', 'story\n');
    await run.acceptStory('1', NO_FIGURES);
    const notice = await run.cleanup({ outcome: 'complete' });
    expect(notice).toBeNull();
    expect(r.read('notes.txt')).toBe('my notes\n');
    expect(r.read('story.txt')).toBe('story\n');
  });
});
