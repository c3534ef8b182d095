import { afterEach, describe, expect, it } from 'vitest';
import {
  eventually,
  groupMembers,
  processGone,
  recordedAgentGroup,
} from '../../support/processes.js';
import { ALL_SUCCEED, FaultWorld, succeed } from './support/world.js';

// Row 1 of the fault matrix: ralphtool is killed with SIGKILL while its agent is writing files.

const CHANGE = 'kill-nine';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

/** Story 1 succeeds; story 2's agent changes files (a user file too), then keeps working. */
function writingWorld(): FaultWorld {
  return new FaultWorld(CHANGE, 3).scenario({
    '1-1': succeed('src/one.txt', 'one\n'),
    '2-1': [
      { write: 'src/partial.txt', content: 'half-way\n' },
      { append: 'src/app.txt', content: 'broken by the agent\n' },
      { delete: 'docs/stable.md' },
      { append: 'docs/draft.md', content: 'agent scribble\n' },
      { say: 'writing story 2' },
      { hang: true, withChild: true },
    ],
  });
}

describe('kill -9 of ralphtool while the agent is writing files', () => {
  it('status says interrupted; resume reverts the attempt (saved under its ref), kills the orphaned agent and finishes (exit 0)', async () => {
    world = writingWorld();
    const w = world;
    const live = w.spawn('run');
    await live.waitFor((e) => e.type === 'agent.message' && e.text === 'writing story 2');
    expect(await eventually(() => w.childPid('2', 1) !== null)).toBe(true);
    await live.kill9();

    // What the crash left: the state says active, with the agent's process group recorded.
    const crashed = w.state();
    expect(crashed).toMatchObject({ status: 'active', currentStory: '2', currentAttempt: 1 });
    const pgid = crashed.agentPgid as number;
    expect(typeof pgid).toBe('number');
    w.strayGroups.push(pgid);
    expect(groupMembers(pgid).length).toBeGreaterThan(0); // the agent outlived ralphtool
    const checkpoint1 = crashed.checkpointSha as string;
    expect(w.subjects(`main..${checkpoint1}`)).toEqual(['initial state', 'checkpoint: 1']);

    const status = await w.statusJson();
    expect(status.runs).toHaveLength(1);
    expect(status.runs[0]).toMatchObject({
      change: CHANGE,
      state: 'interrupted',
      pid: null,
      currentStory: '2',
      currentAttempt: 1,
      stories: { done: 1, total: 3 },
    });
    expect(String(status.runs[0]?.next)).toContain(`ralphtool resume ${CHANGE}`);

    w.scenario(ALL_SUCCEED);
    const resumed = await w.loop('resume');
    expect(resumed.stderr).toContain('stopped the agent the interrupted run left running');
    expect(resumed.exitCode, resumed.stderr).toBe(0);

    // The orphaned agent group is gone, its child included.
    expect(await eventually(() => groupMembers(pgid).length === 0)).toBe(true);
    expect(processGone(w.childPid('2', 1) ?? 0)).toBe(true);

    // The half-done attempt was saved under its ref, then reverted.
    const ref = `refs/ralphtool/${CHANGE}/attempts/2-1`;
    expect(w.attemptRefs()).toEqual([ref]);
    expect(w.git('show', `${ref}:src/partial.txt`)).toBe('half-way\n');
    expect(w.git('show', `${ref}:docs/draft.md`)).toBe(
      'draft v2, not committed yet\nagent scribble\n',
    );
    expect(w.treeFiles(ref)).not.toContain('docs/stable.md');

    // Resume carried on with the recorded attempt count: story 2 gets attempt 2.
    const started = resumed.events().filter((e) => e.type === 'story.started');
    expect(started.map((e) => [e.storyId, e.attempt])).toEqual([
      ['2', 2],
      ['3', 1],
    ]);
    expect(w.invoked('2', 2)).toBe(true);

    // Git: one commit per story on the run's branch, the crashed attempt nowhere in it.
    expect(w.currentBranch()).toBe(w.branch);
    expect(w.subjects(`main..${w.branch}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
      'checkpoint: 3',
    ]);
    expect(w.treeFiles(w.branch)).not.toContain('src/partial.txt');
    expect(w.git('show', `${w.branch}:src/app.txt`)).toBe('app v1\n');
    expect(w.status()).toEqual([]);

    // State: finished, kept, every story completed with its attempt count.
    const done = w.state();
    expect(done).toMatchObject({
      status: 'finished',
      choice: 'keep',
      outcome: 'complete',
      step: null,
      pid: null,
      agentPgid: null,
      checkpointSha: w.sha(w.branch),
    });
    expect(done.stories['1']).toMatchObject({ completed: true, attempts: 1 });
    expect(done.stories['2']).toMatchObject({ completed: true, attempts: 2 });
    expect(done.stories['3']).toMatchObject({ completed: true, attempts: 1 });

    // The user's files: byte-identical in the tree, and as they were in the initial state.
    expect(w.userFilesChanged()).toEqual([]);
    expect(w.userFilesIn(w.branch)).toEqual(w.userFilesIn(`${w.branch}~3`));
    const after = await w.statusJson();
    expect(after.runs[0]).toMatchObject({ state: 'finished', choice: 'keep' });
  });

  it('finish --cleanup after the kill brings main back with the accepted work uncommitted and the user’s changes intact', async () => {
    world = writingWorld();
    const w = world;
    const mainBefore = w.sha('main');
    const live = w.spawn('run');
    await live.waitFor((e) => e.type === 'agent.message' && e.text === 'writing story 2');
    expect(await eventually(() => w.childPid('2', 1) !== null)).toBe(true);
    const pgid = await recordedAgentGroup(() => w.state());
    await live.kill9();
    w.strayGroups.push(pgid);

    const finished = await w.cli(['finish', CHANGE, '--cleanup']);
    expect(finished.exitCode, finished.stderr).toBe(0);
    expect(await eventually(() => groupMembers(pgid).length === 0)).toBe(true);

    expect(w.currentBranch()).toBe('main');
    expect(w.sha('main')).toBe(mainBefore);
    expect(w.branchExists(w.branch)).toBe(false);
    expect(w.read('src/one.txt')).toBe('one\n');
    expect(w.exists('src/partial.txt')).toBe(false);
    expect(w.read('src/app.txt')).toBe('app v1\n');
    expect(w.status().sort()).toEqual(
      [' M docs/draft.md', ` M ${w.tasksPath}`, '?? notes/todo.txt', '?? src/one.txt'].sort(),
    );
    expect(w.userFilesChanged()).toEqual([]);
    expect(w.attemptRefs()).toEqual([`refs/ralphtool/${CHANGE}/attempts/2-1`]);
    expect(w.state()).toMatchObject({ status: 'finished', choice: 'cleanup', step: null });
  });
});
