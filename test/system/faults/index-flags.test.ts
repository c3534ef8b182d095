import { readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_SUCCEED, FaultWorld } from './support/world.js';

// Fault matrix §1: index flags that hide a change from `git add -A`. A file marked
// assume-unchanged or skip-worktree whose bytes differ from its index entry would be left out
// of the "initial state" snapshot, so a revert or the cleanup could overwrite the user's
// version. The start refuses it (exit 2, nothing changed) naming the command that clears the
// flag; a flagged file that does not differ (or is absent, as in a sparse checkout) is no reason
// to refuse. An index with unresolved conflicts is refused too: no snapshot can hold it.

const CHANGE = 'index-flags';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

function flagWorld(): FaultWorld {
  world = new FaultWorld(CHANGE, 1, { extraFiles: { 'config/local.ini': 'port=80\n' } });
  world.scenario(ALL_SUCCEED);
  return world;
}

async function expectRefused(w: FaultWorld, ...mentions: string[]): Promise<void> {
  const head = w.sha('HEAD');
  const before = w.status();
  const result = await w.loop('run');
  expect(result.exitCode, result.stderr).toBe(2);
  expect(result.stderr.trim().split('\n'), result.stderr).toHaveLength(1);
  for (const text of mentions) expect(result.stderr).toContain(text);
  expect(w.sha('HEAD')).toBe(head);
  expect(w.currentBranch()).toBe('main');
  expect(w.branchExists(w.branch)).toBe(false);
  expect(w.git('for-each-ref', 'refs/ralphtool/')).toBe('');
  expect(w.status()).toEqual(before);
  expect(w.userFilesChanged()).toEqual([]);
}

describe('files hidden from git add by an index flag', () => {
  for (const [flag, clear] of [
    ['--assume-unchanged', '--no-assume-unchanged'],
    ['--skip-worktree', '--no-skip-worktree'],
  ] as const) {
    it(`${flag.slice(2)} with local edits: refused, naming \`git update-index ${clear}\``, async () => {
      const w = flagWorld();
      w.git('update-index', flag, '--', 'config/local.ini');
      w.write('config/local.ini', 'port=8080\r\n# my local setting\n');
      await expectRefused(
        w,
        'config/local.ini',
        flag.slice(2),
        `git update-index ${clear} -- config/local.ini`,
      );
      expect(readFileSync(path.join(w.dir, 'config/local.ini'), 'latin1')).toBe(
        'port=8080\r\n# my local setting\n',
      );
      // The flag is the user's: still set.
      expect(w.git('ls-files', '-v', '--', 'config/local.ini')).toMatch(/^[hSs] /);

      // Once cleared as told, the run goes through and the cleanup gives the edit back.
      w.git('update-index', clear, '--', 'config/local.ini');
      const result = await w.loop('run', [], { onComplete: 'cleanup' });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(w.read('config/local.ini')).toBe('port=8080\r\n# my local setting\n');
      expect(w.read('src/story.txt')).toBe('x\n');
    });

    it(`${flag.slice(2)} on an unchanged file: the run goes through and the file is untouched`, async () => {
      const w = flagWorld();
      w.git('update-index', flag, '--', 'config/local.ini');
      const result = await w.loop('run', [], { onComplete: 'cleanup' });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(w.read('config/local.ini')).toBe('port=80\n');
      expect(w.userFilesChanged()).toEqual([]);
    });
  }

  it('skip-worktree on a file absent from the work tree (sparse checkout): no refusal', async () => {
    const w = flagWorld();
    w.git('update-index', '--skip-worktree', '--', 'config/local.ini');
    rmSync(path.join(w.dir, 'config/local.ini'));
    const result = await w.loop('run', [], { onComplete: 'keep' });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.exists('config/local.ini')).toBe(false);
    expect(w.userFilesChanged()).toEqual([]);
  });
});

describe('an index with unresolved conflicts', () => {
  it('is refused before the start, naming the file', async () => {
    const w = flagWorld();
    w.git('checkout', '-q', '-b', 'other');
    w.write('config/local.ini', 'port=1\n');
    w.git('commit', '-q', '-am', 'other port');
    w.git('checkout', '-q', 'main');
    w.write('config/local.ini', 'port=2\n');
    w.git('commit', '-q', '-am', 'main port');
    w.rebaseline();
    try {
      w.git('merge', '-q', 'other');
    } catch {
      // the conflict is the point
    }
    w.git('merge', '--quit'); // no merge in progress any more, the conflict stays in the index
    w.rebaseline();
    await expectRefused(w, 'config/local.ini', 'conflict');
  });
});
