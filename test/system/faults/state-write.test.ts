import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_SUCCEED, FaultWorld, succeed } from './support/world.js';

// Row 7: the run's state cannot be written (a read-only or full `.git`). Tests run as root,
// where chmod does not stop writes, so the run folder is made immutable (`chattr +i`): no file
// can be created or renamed in it, even by root, which is what the atomic write (temp file +
// rename) needs. The run must stop with a clear error, its last good state still on disk, and
// `resume` must carry on once the disk is writable again.

const CHANGE = 'state-write';

let world: FaultWorld | undefined;
let frozen: string | null = null;
afterEach(() => {
  if (frozen) chattr('-i', frozen);
  frozen = null;
  world?.remove();
  world = undefined;
});

function chattr(flag: string, dir: string): void {
  execFileSync('chattr', [flag, dir]);
}

describe('the state file cannot be written', () => {
  it('stops with a clear error (exit 1), the last good state on disk; resume carries on afterwards', async () => {
    world = new FaultWorld(CHANGE, 3).scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
      '2-1': [
        { write: 'src/two.txt', content: 'two\n' },
        { tick: 'all' },
        { say: 'almost done' },
        { sleep: 1500 },
        { signal: 'COMPLETE' },
      ],
    });
    const w = world;
    const live = w.spawn('run');
    await live.waitFor((e) => e.type === 'agent.message' && e.text === 'almost done');
    const lastGood = readFileSync(w.stateFile, 'utf8');
    chattr('+i', w.runDir);
    frozen = w.runDir;
    const exit = await live.exited;

    expect(exit.code, live.stderr).toBe(1);
    expect(live.stderr).toContain('cannot write run state');
    expect(live.stderr).toContain(w.stateFile);
    expect(live.stderr.trim().split('\n').length).toBeLessThanOrEqual(3);
    const fatal = live.events.filter((e) => e.type === 'error' && e.fatal === true);
    expect(fatal.length).toBe(1);
    // The last good state is on disk, whole, and still says where the run was.
    expect(readFileSync(w.stateFile, 'utf8')).toBe(lastGood);
    const good = JSON.parse(lastGood) as { checkpointSha: string };
    expect(good).toMatchObject({
      status: 'active',
      step: null,
      currentStory: '2',
      currentAttempt: 1,
    });
    // Git did not move past what the state records.
    expect(w.sha('HEAD')).toBe(good.checkpointSha);

    chattr('-i', w.runDir);
    frozen = null;
    const status = await w.statusJson();
    expect(status.runs[0]).toMatchObject({ state: 'interrupted' });
    w.scenario(ALL_SUCCEED);
    const resumed = await w.loop('resume');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(w.git('show', `refs/ralphtool/${CHANGE}/attempts/2-1:src/two.txt`)).toBe('two\n');
    expect(w.subjects(`main..${w.branch}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
      'checkpoint: 3',
    ]);
    expect(w.status()).toEqual([]);
    expect(w.userFilesChanged()).toEqual([]);
  });

  it('a run cannot start when its folder cannot be written: exit 1, nothing changed in git', async () => {
    world = new FaultWorld(CHANGE, 1).scenario(ALL_SUCCEED);
    const w = world;
    execFileSync('mkdir', ['-p', w.runDir]);
    chattr('+i', w.runDir);
    frozen = w.runDir;
    const head = w.sha('HEAD');
    const result = await w.loop('run');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toMatch(/cannot (create the lock|write run state)/);
    expect(w.currentBranch()).toBe('main');
    expect(w.sha('HEAD')).toBe(head);
    expect(w.branchExists(w.branch)).toBe(false);
    expect(w.userFilesChanged()).toEqual([]);
  });
});
