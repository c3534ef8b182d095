import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { tasksMarkdown } from '../../support/temp-repo.js';
import { recordedAgentGroup } from '../../support/processes.js';
import { agentFlags, ALL_SUCCEED, FaultWorld, stories, succeed } from './support/world.js';
import type { LiveCli } from '../../support/live-cli.js';

// Row 8: two ralphtools at once. A second run of the same change is refused, naming the
// holder's pid; so is a run of another change in the same work tree. The exit code is 2, as
// the contract's "Start" says for a held lock (the text says 1; the contract wins).
// A lock whose holder is gone is taken over with a warning.

const CHANGE = 'locked';
const OTHER = 'other-change';

let world: FaultWorld | undefined;
let live: LiveCli | undefined;
afterEach(async () => {
  if (live) {
    live.child.kill('SIGTERM');
    await live.exited;
    live = undefined;
  }
  world?.remove();
  world = undefined;
});

/** A run of CHANGE whose agent hangs on story 1 (until the test ends it). */
async function busyWorld(): Promise<{ w: FaultWorld; holder: LiveCli }> {
  world = new FaultWorld(CHANGE, 2, {
    extraFiles: {
      [`openspec/changes/${OTHER}/proposal.md`]: '# other\n',
      [`openspec/changes/${OTHER}/tasks.md`]: tasksMarkdown(stories(1)),
    },
  }).scenario({ '1-1': [{ say: 'busy' }, { hang: true }], ...ALL_SUCCEED });
  const w = world;
  live = w.spawn('run');
  await live.waitFor((e) => e.type === 'agent.message' && e.text === 'busy');
  const pgid = await recordedAgentGroup(() => w.state());
  w.strayGroups.push(pgid);
  return { w, holder: live };
}

function snapshotGit(w: FaultWorld): Record<string, string> {
  return {
    head: w.git('rev-parse', 'HEAD'),
    refs: w.git('for-each-ref'),
    status: w.status().join('\n'),
    state: readFileSync(w.stateFile, 'utf8'),
  };
}

describe('two ralphtools on one repository', () => {
  it('a second run of the same change is refused with exit 2 naming the holder’s pid', async () => {
    const { w, holder } = await busyWorld();
    const before = snapshotGit(w);
    const second = await w.loop('run');
    expect(second.exitCode, second.stderr).toBe(2);
    expect(second.stderr).toContain(`pid ${holder.pid}`);
    expect(snapshotGit(w)).toEqual(before);
    expect(w.invoked('1', 2)).toBe(false);
    const status = await w.statusJson();
    expect(status.runs[0]).toMatchObject({ change: CHANGE, state: 'running', pid: holder.pid });
  });

  it('resume and finish of the running change are refused (exit 2) and change nothing', async () => {
    const { w, holder } = await busyWorld();
    const before = snapshotGit(w);
    const resumed = await w.loop('resume');
    expect(resumed.exitCode).toBe(2);
    expect(resumed.stderr).toContain(`pid ${holder.pid}`);
    const finished = await w.cli(['finish', CHANGE, '--cleanup']);
    expect(finished.exitCode).toBe(2);
    expect(finished.stderr).toContain(`pid ${holder.pid}`);
    expect(snapshotGit(w)).toEqual(before);
  });

  it('a run of another change in the same work tree is refused (exit 2), saying they share it', async () => {
    const { w, holder } = await busyWorld();
    const before = snapshotGit(w);
    const other = await w.cli(['run', OTHER, ...agentFlags(), '--json', '--on-complete', 'keep']);
    expect(other.exitCode).toBe(2);
    expect(other.stderr).toContain(`pid ${holder.pid}`);
    expect(other.stderr).toMatch(/work(ing)? tree/);
    expect(snapshotGit(w)).toEqual(before);
    expect(w.branchExists(`ralph/${OTHER}`)).toBe(false);
    expect(w.state()).toMatchObject({ change: CHANGE });
  });

  it('two runs started at the same moment: exactly one gets the lock', async () => {
    world = new FaultWorld(CHANGE, 1).scenario({ '1-1': succeed('src/one.txt', 'one\n') });
    const w = world;
    const [a, b] = await Promise.all([w.loop('run'), w.loop('run')]);
    const codes = [a.exitCode, b.exitCode].sort();
    // The loser is refused by the lock or, when the winner already finished, by the finished
    // run's branch (both exit 2); it never runs an agent of its own.
    expect(codes).toEqual([0, 2]);
    expect(w.subjects(`main..${w.branch}`)).toEqual(['initial state', 'checkpoint: 1']);
    expect(w.userFilesChanged()).toEqual([]);
  });

  it('after kill -9 the dead holder’s lock is taken over with a warning naming it', async () => {
    const { w, holder } = await busyWorld();
    await holder.kill9();
    live = undefined;
    const lock = JSON.parse(readFileSync(path.join(w.runDir, 'lock'), 'utf8')) as { pid: number };
    expect(lock.pid).toBe(holder.pid);
    const resumed = await w.loop('resume');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      `took over the lock of a ralphtool that is gone (pid ${holder.pid}`,
    );
    expect(w.subjects(`main..${w.branch}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
    expect(w.userFilesChanged()).toEqual([]);
  });
});
