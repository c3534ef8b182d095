import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { crashWhileAgentRuns } from './support/crash.js';
import { eventually, killGroup, processGone } from '../../support/processes.js';
import { ALL_SUCCEED, FaultWorld } from './support/world.js';

// status / resume / finish around interrupted and finished runs.

const CHANGE = 'commands';

let world: FaultWorld | undefined;
const strays: number[] = [];
afterEach(() => {
  for (const pid of strays.splice(0)) killGroup(pid);
  world?.remove();
  world = undefined;
});

/** A run killed while story 2's attempt 1 was half done (story 1 accepted). */
async function interrupted(): Promise<FaultWorld> {
  world = new FaultWorld(CHANGE, 3).scenario({
    '1-1': [{ write: 'src/one.txt', content: 'one\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
    '2-1': [{ write: 'src/partial.txt', content: 'half\n' }, { say: 'half done' }, { hang: true }],
  });
  await crashWhileAgentRuns(world, 'half done');
  world.scenario(ALL_SUCCEED);
  return world;
}

describe('run, resume and finish on a recorded run', () => {
  it('run on a change with an unfinished run refuses (exit 2) naming resume and finish, changing nothing', async () => {
    const w = await interrupted();
    const head = w.git('rev-parse', 'HEAD');
    const status = w.status();
    const result = await w.loop('run');
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain(`ralphtool resume ${CHANGE}`);
    expect(result.stderr).toContain(`ralphtool finish ${CHANGE} --cleanup|--keep`);
    expect(w.git('rev-parse', 'HEAD')).toBe(head);
    expect(w.status()).toEqual(status);
    expect(w.invoked('2', 2)).toBe(false);
  });

  it('resume of a finished run refuses (exit 2) and changes nothing', async () => {
    const w = await interrupted();
    expect((await w.loop('resume')).exitCode).toBe(0);
    const head = w.git('rev-parse', 'HEAD');
    const again = await w.loop('resume');
    expect(again.exitCode).toBe(2);
    // Kept (the default without a terminal): its work is on its branch, and the refusal says so.
    expect(again.stderr).toContain(`finished and kept its work on ralph/${CHANGE}`);
    expect(again.stderr).toContain(`ralphtool run ${CHANGE} --force`);
    expect(w.git('rev-parse', 'HEAD')).toBe(head);
    const finish = await w.cli(['finish', CHANGE, '--cleanup']);
    expect(finish.exitCode).toBe(2);
    expect(w.currentBranch()).toBe(w.branch);
  });

  it('resume or finish of a change without a recorded run: exit 2 pointing to run', async () => {
    world = new FaultWorld(CHANGE, 1).scenario(ALL_SUCCEED);
    const w = world;
    for (const result of [await w.loop('resume'), await w.cli(['finish', CHANGE, '--keep'])]) {
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(`ralphtool run ${CHANGE}`);
    }
    expect(w.currentBranch()).toBe('main');
    expect(existsSync(w.stateFile)).toBe(false);
  });

  it('finish refuses bad flag combinations (exit 2)', async () => {
    const w = await interrupted();
    const state = JSON.stringify(w.state());
    for (const flags of [[], ['--cleanup', '--keep'], ['--prune']]) {
      const result = await w.cli(['finish', CHANGE, ...flags]);
      expect(result.exitCode, flags.join(' ')).toBe(2);
    }
    expect(JSON.stringify(w.state())).toBe(state);
  });

  it('finish --keep ends at the last checkpoint, the half-done attempt saved', async () => {
    const w = await interrupted();
    const result = await w.cli(['finish', CHANGE, '--keep']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.currentBranch()).toBe(w.branch);
    expect(w.subjects(`main..${w.branch}`)).toEqual(['initial state', 'checkpoint: 1']);
    expect(w.status()).toEqual([]);
    expect(w.git('show', `refs/ralphtool/${CHANGE}/attempts/2-1:src/partial.txt`)).toBe('half\n');
    expect(w.userFilesChanged()).toEqual([]);
    expect(w.state()).toMatchObject({ status: 'finished', choice: 'keep', outcome: 'stopped' });
    const status = await w.statusJson();
    expect(status.runs[0]).toMatchObject({ state: 'finished', choice: 'keep' });
  });

  it('finish --cleanup --prune returns to main and deletes the run folder and the attempt refs but the one it saved', async () => {
    const w = await interrupted();
    const mainBefore = w.sha('main');
    const result = await w.cli(['finish', CHANGE, '--cleanup', '--prune']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.currentBranch()).toBe('main');
    expect(w.sha('main')).toBe(mainBefore);
    // The ref this finish saved the half-done attempt under is kept (it may hold user edits).
    const saved = `refs/ralphtool/${CHANGE}/attempts/2-1`;
    expect(w.attemptRefs()).toEqual([saved]);
    expect(result.stderr).toContain(`ralphtool: kept ${saved}:`);
    expect(w.git('show', `${saved}:src/partial.txt`)).toBe('half\n');
    expect(existsSync(w.runDir)).toBe(false);
    expect(w.read('src/one.txt')).toBe('one\n');
    expect(w.exists('src/partial.txt')).toBe(false);
    expect(w.userFilesChanged()).toEqual([]);
    expect((await w.statusJson()).runs).toEqual([]);
    // With the record gone, a new run starts afresh.
    const again = await w.loop('run');
    expect(again.exitCode, again.stderr).toBe(0);
  });

  it('finish --prune alone on a finished run deletes its refs and folder only', async () => {
    const w = await interrupted();
    expect((await w.cli(['finish', CHANGE, '--keep'])).exitCode).toBe(0);
    const branchSha = w.sha(w.branch);
    const result = await w.cli(['finish', CHANGE, '--prune']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.attemptRefs()).toEqual([]);
    expect(existsSync(w.runDir)).toBe(false);
    expect(w.sha(w.branch)).toBe(branchSha);
    expect(w.currentBranch()).toBe(w.branch);
    expect(w.userFilesChanged()).toEqual([]);
  });
});

describe('the agent process group recorded by a crashed run', () => {
  it('is not killed when its id now belongs to an unrelated process (pid reuse after a reboot)', async () => {
    const w = await interrupted();
    // An unrelated program that happens to lead a process group with the recorded id.
    const unrelated = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1e9)'], {
      detached: true,
      stdio: 'ignore',
    });
    const pid = unrelated.pid as number;
    strays.push(pid);
    w.writeState({ ...w.state(), agentPgid: pid });
    const result = await w.cli(['finish', CHANGE, '--keep']);
    expect(result.exitCode, result.stderr).toBe(0);
    // Give a wrongly sent SIGKILL time to land before looking.
    await eventually(() => processGone(pid), 1_000);
    expect(processGone(pid)).toBe(false);
  });
});
