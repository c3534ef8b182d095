import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_SUCCEED, agentFlags, FaultWorld, succeed } from '../faults/support/world.js';
import { LiveCli } from '../../support/live-cli.js';
import { eventually } from '../../support/processes.js';

// A run kept with stories left (stopped by the user, or a story out of retries) is not over:
// `resume` carries on from its last checkpoint, `finish --cleanup` still brings the work back,
// `finish --keep` ends it for good, and a new `run` points to those instead of `git branch -D`.

const CHANGE = 'keep-going';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

/** Story 1 is accepted; story 2's agent writes a file, says so and hangs. */
function hangingWorld(): FaultWorld {
  return new FaultWorld(CHANGE, 3).scenario({
    '1-1': succeed('src/one.txt', 'one\n'),
    '2-1': [
      { write: 'src/partial.txt', content: 'half-way\n' },
      { say: 'writing story 2' },
      { hang: true },
    ],
  });
}

/** Story 1 gives up on every attempt. */
function exhaustingWorld(): FaultWorld {
  return new FaultWorld(CHANGE, 2).scenario({
    '1-*': [{ write: 'src/bad.txt', content: 'bad\n' }, { signal: 'FAILED: cannot do it' }],
  });
}

/** A new `run` is refused (exit 2) with `resume`/`finish` advice, and nothing moves. */
async function expectRunRefusedForResume(w: FaultWorld): Promise<void> {
  const head = w.git('rev-parse', 'HEAD');
  const refs = w.git('for-each-ref');
  const again = await w.loop('run');
  expect(again.exitCode).toBe(2);
  expect(again.stderr).toContain(`ralphtool resume ${CHANGE}`);
  expect(again.stderr).toContain(`ralphtool finish ${CHANGE}`);
  expect(again.stderr).not.toContain('branch -D');
  expect(again.stderr).not.toContain('--force');
  expect(w.git('rev-parse', 'HEAD')).toBe(head);
  expect(w.git('for-each-ref')).toBe(refs);
}

describe('a run kept with stories left', () => {
  it('headless Ctrl-C with the default keep, then resume carries on from the last checkpoint', async () => {
    world = hangingWorld();
    const w = world;
    // No --on-complete: without a terminal the default is keep.
    const live = new LiveCli(['run', CHANGE, ...agentFlags(), '--json'], w.dir, w.env());
    await live.waitFor((e) => e.type === 'agent.message' && e.text === 'writing story 2');
    expect(await eventually(() => typeof w.state().agentPgid === 'number')).toBe(true);
    w.strayGroups.push(w.state().agentPgid as number);
    live.signal('SIGINT');
    expect((await live.exited).code).toBe(130);

    expect(w.state()).toMatchObject({
      status: 'active',
      choice: 'keep',
      outcome: 'stopped',
      pid: null,
    });
    expect(w.currentBranch()).toBe(w.branch);
    expect(w.subjects(`main..${w.branch}`)).toEqual(['initial state', 'checkpoint: 1']);
    expect(w.status()).toEqual([]);

    const status = await w.statusJson();
    expect(status.runs[0]).toMatchObject({ change: CHANGE, outcome: 'stopped', choice: 'keep' });
    expect(String(status.runs[0]?.next)).toContain('kept incomplete');
    expect(String(status.runs[0]?.next)).toContain(`ralphtool resume ${CHANGE}`);
    expect(String(status.runs[0]?.next)).toContain(`ralphtool finish ${CHANGE}`);
    await expectRunRefusedForResume(w);

    w.scenario(ALL_SUCCEED);
    const resumed = await w.loop('resume');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const started = resumed.events().filter((e) => e.type === 'story.started');
    // The stopped attempt did not count: story 2 starts afresh at attempt 1, story 1 is done.
    expect(started.map((e) => [e.storyId, e.attempt])).toEqual([
      ['2', 1],
      ['3', 1],
    ]);
    expect(w.subjects(`main..${w.branch}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
      'checkpoint: 3',
    ]);
    expect(w.state()).toMatchObject({ status: 'finished', outcome: 'complete', choice: 'keep' });
    expect(w.userFilesChanged()).toEqual([]);
  });

  it('a story out of retries, kept: resume gives it the recorded attempts plus the new limit', async () => {
    world = exhaustingWorld();
    const w = world;
    const first = await w.loop('run', ['--max-retries', '0']);
    expect(first.exitCode).toBe(3);
    expect(w.state()).toMatchObject({ status: 'active', choice: 'keep', outcome: 'max-retries' });
    await expectRunRefusedForResume(w);

    // While the run waits, the user adds a story to the plan: it is theirs, not an attempt's.
    const plan = readFileSync(join(w.dir, w.tasksPath), 'utf8');
    writeFileSync(join(w.dir, w.tasksPath), `${plan}\n## 3. Added by you\n\n- [ ] 3.1 do it\n`);
    w.scenario({
      '1-2': succeed('src/one.txt', 'one\n'),
      '2-1': succeed('src/two.txt', '2\n'),
      '3-1': succeed('src/three.txt', '3\n'),
    });
    const resumed = await w.loop('resume', ['--max-retries', '1']);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(`your edits of ${w.tasksPath} since the run stopped`);
    const started = resumed.events().filter((e) => e.type === 'story.started');
    expect(started.map((e) => [e.storyId, e.attempt])).toEqual([
      ['1', 2],
      ['2', 1],
      ['3', 1],
    ]);
    expect(w.subjects(`main..${w.branch}`)).toEqual([
      'initial state',
      'tasks.md: edited by you between runs',
      'checkpoint: 1',
      'checkpoint: 2',
      'checkpoint: 3',
    ]);
    expect(w.state()).toMatchObject({ status: 'finished', outcome: 'complete' });
  });

  it('finish --cleanup brings the kept work back to the original branch', async () => {
    world = new FaultWorld(CHANGE, 2).scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
      '2-*': [{ signal: 'FAILED: no' }],
    });
    const w = world;
    expect((await w.loop('run', ['--max-retries', '0'])).exitCode).toBe(3);
    expect(w.state()).toMatchObject({ status: 'active', choice: 'keep' });

    const finished = await w.cli(['finish', CHANGE, '--cleanup']);
    expect(finished.exitCode, finished.stderr).toBe(0);
    expect(w.currentBranch()).toBe('main');
    expect(w.branchExists(w.branch)).toBe(false);
    expect(w.read('src/one.txt')).toBe('one\n');
    expect(w.state()).toMatchObject({ status: 'finished', choice: 'cleanup' });
    expect(w.userFilesChanged()).toEqual([]);
  });

  it('finish --keep ends it for good: resume is refused afterwards', async () => {
    world = exhaustingWorld();
    const w = world;
    expect((await w.loop('run', ['--max-retries', '0'])).exitCode).toBe(3);

    const finished = await w.cli(['finish', CHANGE, '--keep']);
    expect(finished.exitCode, finished.stderr).toBe(0);
    expect(w.state()).toMatchObject({ status: 'finished', choice: 'keep', outcome: 'max-retries' });
    expect(w.currentBranch()).toBe(w.branch);

    const resumed = await w.loop('resume');
    expect(resumed.exitCode).toBe(2);
    expect(resumed.stderr).toContain(`finished and kept its work on ralph/${CHANGE}`);
    const status = await w.statusJson();
    expect(status.runs[0]).toMatchObject({ state: 'finished' });
  });
});
