import { afterEach, describe, expect, it } from 'vitest';
import { ALL_SUCCEED, FaultWorld, USER_FILES } from './support/world.js';

// Row 5: the agent modifies an ignored file and creates ignored files. Ignored files are not
// versioned, so ralphtool neither commits nor reverts them (documented behaviour): they stay as
// the agent left them, and nothing else of the user's is lost.

const CHANGE = 'ignored-files';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

describe('an agent that touches ignored files', () => {
  it('failed attempt: the ignored files it changed or created stay, everything else is reverted', async () => {
    world = new FaultWorld(CHANGE, 2).scenario({
      '1-1': [
        { append: '.env', content: 'ADDED_BY_AGENT=1\n' },
        { write: 'node_modules/newpkg/index.js', content: 'new package\n' },
        { write: 'build/generated.bin', content: '\u0000\u0001binary' },
        { write: 'src/tracked-work.txt', content: 'reverted\n' },
        { signal: 'FAILED: try again' },
      ],
      ...ALL_SUCCEED,
    });
    const w = world;
    const result = await w.loop('run');
    expect(result.exitCode, result.stderr).toBe(0);

    expect(w.read('.env')).toBe('SECRET=do-not-lose\nADDED_BY_AGENT=1\n');
    expect(w.read('node_modules/newpkg/index.js')).toBe('new package\n');
    expect(w.exists('build/generated.bin')).toBe(true);
    expect(w.exists('src/tracked-work.txt')).toBe(false);
    // Ignored files are never committed, neither in checkpoints nor in the saved attempt.
    for (const rev of [w.branch, `refs/ralphtool/${CHANGE}/attempts/1-1`]) {
      const files = w.treeFiles(rev);
      expect(files.filter((f) => f.startsWith('node_modules/') || f.startsWith('build/'))).toEqual(
        [],
      );
      expect(files).not.toContain('.env');
    }
    // Every other user file is byte-identical.
    const changed = w.userFilesChanged();
    expect(changed).toEqual(['content changed: .env']);
    for (const file of [
      ...USER_FILES.committed,
      ...USER_FILES.uncommitted,
      ...USER_FILES.untracked,
    ]) {
      expect(changed.join('\n')).not.toContain(file);
    }
    expect(w.status()).toEqual([]);
    expect(w.subjects(`main..${w.branch}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
  });

  it('a file ignored only by a .gitignore the attempt added is saved with the attempt, then removed', async () => {
    world = new FaultWorld(CHANGE, 1).scenario({
      '1-1': [
        { write: 'gen/.gitignore', content: '*.out\n' },
        { write: 'gen/result.out', content: 'hidden by the attempt\n' },
        { signal: 'FAILED: nope' },
      ],
      ...ALL_SUCCEED,
    });
    const w = world;
    const result = await w.loop('run');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.exists('gen/result.out')).toBe(false);
    expect(w.git('show', `refs/ralphtool/${CHANGE}/attempts/1-1:gen/result.out`)).toBe(
      'hidden by the attempt\n',
    );
    expect(w.userFilesChanged()).toEqual([]);
    expect(w.status()).toEqual([]);
  });

  it('cleanup leaves the ignored files in place next to the returned work', async () => {
    world = new FaultWorld(CHANGE, 1).scenario({
      '1-1': [
        { write: 'node_modules/newpkg/index.js', content: 'new package\n' },
        { write: 'src/one.txt', content: 'one\n' },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    const w = world;
    const result = await w.loop('run', [], { onComplete: 'cleanup' });
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.currentBranch()).toBe('main');
    expect(w.read('node_modules/newpkg/index.js')).toBe('new package\n');
    expect(w.userFilesChanged()).toEqual([]);
    expect(w.status().sort()).toEqual(
      [' M docs/draft.md', ` M ${w.tasksPath}`, '?? notes/todo.txt', '?? src/one.txt'].sort(),
    );
  });
});
