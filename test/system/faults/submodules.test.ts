import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanGitEnv } from '../../support/temp-repo.js';
import { snapshotTree } from './support/snapshot.js';
import { ALL_SUCCEED, FaultWorld, succeed } from './support/world.js';

// Row 10: a repository with a submodule. ralphtool never changes what is inside a submodule
// (it is another repository: its files are not the run's to revert), and says so when the
// submodule is dirty instead of silently leaving or losing changes there.

const CHANGE = 'submodules';
const SUB = 'vendor/lib';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: cleanGitEnv(), encoding: 'utf8' });
}

/** A world whose repository has `vendor/lib` as a submodule (cloned from a scratch repo). */
function submoduleWorld(scenario: Record<string, Record<string, unknown>[]>): FaultWorld {
  world = new FaultWorld(CHANGE, 2).scenario(scenario);
  const w = world;
  const upstream = path.join(w.scratch, 'upstream');
  mkdirSync(upstream);
  git(upstream, 'init', '-q', '-b', 'main');
  git(upstream, 'config', 'user.name', 'Sub');
  git(upstream, 'config', 'user.email', 'sub@example.com');
  execFileSync('sh', ['-c', 'echo "lib v1" > lib.txt'], { cwd: upstream });
  git(upstream, 'add', '-A');
  git(upstream, 'commit', '-q', '-m', 'lib');
  w.git('-c', 'protocol.file.allow=always', 'submodule', 'add', '-q', upstream, SUB);
  git(path.join(w.dir, SUB), 'config', 'user.name', 'Sub');
  git(path.join(w.dir, SUB), 'config', 'user.email', 'sub@example.com');
  // Commit the submodule but keep the user's uncommitted files as they were.
  w.git('commit', '-q', '-m', 'add submodule', '--', '.gitmodules', SUB);
  return w;
}

function messages(result: { stdout: string; stderr: string }): string {
  return `${result.stderr}\n${result.stdout}`;
}

describe('a repository with a submodule', () => {
  it('clean submodule: the run completes and the submodule is untouched', async () => {
    const w = submoduleWorld({ ...ALL_SUCCEED });
    const subBefore = snapshotTree(path.join(w.dir, SUB), ['.git']);
    const subHead = git(path.join(w.dir, SUB), 'rev-parse', 'HEAD');
    const result = await w.loop('run', [], { onComplete: 'cleanup' });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(snapshotTree(path.join(w.dir, SUB), ['.git'])).toEqual(subBefore);
    expect(git(path.join(w.dir, SUB), 'rev-parse', 'HEAD')).toBe(subHead);
    expect(w.attemptRefs()).toEqual([]);
    expect(w.userFilesChanged()).toEqual([]);
  });

  it('a submodule the user left dirty: untouched, reported, and no attempt is reverted for it', async () => {
    const w = submoduleWorld({ ...ALL_SUCCEED });
    w.write(`${SUB}/lib.txt`, 'lib v1 + my uncommitted edit\n');
    w.write(`${SUB}/scratch.txt`, 'untracked inside the submodule\n');
    const subBefore = snapshotTree(path.join(w.dir, SUB), ['.git']);
    const result = await w.loop('run', [], { onComplete: 'cleanup' });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(snapshotTree(path.join(w.dir, SUB), ['.git'])).toEqual(subBefore);
    expect(readFileSync(path.join(w.dir, SUB, 'lib.txt'), 'utf8')).toBe(
      'lib v1 + my uncommitted edit\n',
    );
    // Nothing of the run's was reverted because of the user's submodule.
    expect(w.attemptRefs(), result.stderr).toEqual([]);
    expect(result.events().filter((e) => e.type === 'checkpoint.reverted')).toEqual([]);
    // Reported: the user hears that the submodule is dirty and was left alone.
    expect(messages(result)).toContain(SUB);
    expect(w.userFilesChanged()).toEqual([]);
    expect(w.currentBranch()).toBe('main');
  });

  it('the agent dirties the submodule and fails: the run continues, the submodule is left as is and reported', async () => {
    const w = submoduleWorld({
      '1-1': [
        { append: `${SUB}/lib.txt`, content: 'agent edit inside the submodule\n' },
        { write: 'src/main-repo.txt', content: 'reverted\n' },
        { signal: 'FAILED: no' },
      ],
      '1-2': succeed('src/one.txt', 'one\n'),
      '2-*': succeed('src/two.txt', 'two\n'),
    });
    const result = await w.loop('run');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.subjects(`main..${w.branch}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
    expect(w.exists('src/main-repo.txt')).toBe(false);
    // ralphtool does not reach into the submodule; the change there is still on disk…
    expect(readFileSync(path.join(w.dir, SUB, 'lib.txt'), 'utf8')).toContain('agent edit');
    // …and the user is told about it.
    expect(messages(result)).toContain(SUB);
    expect(w.userFilesChanged()).toEqual([]);
  });
});
