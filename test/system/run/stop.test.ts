import { afterEach, describe, expect, it } from 'vitest';
import {
  eventually,
  processGone,
  procStat,
  RunFixture,
  single,
  stories,
  succeed,
} from '../../run/helpers.js';
import type { LiveCli } from '../../support/live-cli.js';
import { killGroup } from '../../support/processes.js';

const CHANGE = 'stop-me';

/** Story 1 is accepted; story 2 writes a file, says so, then hangs with a child process. */
function hangingFixture(): RunFixture {
  return new RunFixture(CHANGE, stories(2)).scenario({
    '1-1': succeed('src/one.txt', 'one\n'),
    '2-*': [
      { write: 'src/partial.txt', content: 'half-way\n' },
      { say: 'working on story 2' },
      { hang: true, withChild: true },
    ],
  });
}

/** Waits until story 2's agent is hanging; returns the pids of the agent and of its child. */
async function agentHanging(
  f: RunFixture,
  live: LiveCli,
): Promise<{ agent: number; child: number }> {
  await live.waitFor((e) => e.type === 'agent.message' && e.text === 'working on story 2');
  expect(await eventually(() => f.invoked('2', 1) && childPidReady(f))).toBe(true);
  const child = f.childPid('2', 1);
  const stat = procStat(child);
  if (stat === null) throw new Error('the agent’s child is not running');
  return { agent: stat.pgrp, child };
}

function childPidReady(f: RunFixture): boolean {
  try {
    return f.childPid('2', 1) > 0;
  } catch {
    return false;
  }
}

let fixture: RunFixture | undefined;
let strayGroup: number | null = null;
afterEach(() => {
  // A test that kills ralphtool itself leaves its agent behind: end that group, by its id.
  killGroup(strayGroup);
  strayGroup = null;
  fixture?.remove();
  fixture = undefined;
});

describe('ralphtool run: stopped by the user', () => {
  it('Ctrl-C kills the agent group, reverts the partial attempt and cleans up (exit 130)', async () => {
    fixture = hangingFixture();
    const f = fixture;
    const live = f.spawn(['--json', '--on-complete', 'cleanup']);
    const pids = await agentHanging(f, live);
    strayGroup = pids.agent;

    live.signal('SIGINT');
    const exit = await live.exited;
    expect(exit.code).toBe(130);

    expect(single(live.events, 'run.awaiting-choice')).toMatchObject({ outcome: 'stopped' });
    expect(single(live.events, 'run.finished')).toMatchObject({
      outcome: 'stopped',
      choice: 'cleanup',
      storiesCompleted: 1,
      storiesTotal: 2,
    });
    expect(await eventually(() => processGone(pids.child))).toBe(true);
    expect(await eventually(() => processGone(pids.agent))).toBe(true);

    expect(f.currentBranch()).toBe('main');
    expect(f.branchExists(`ralph/${CHANGE}`)).toBe(false);
    expect(f.exists('src/partial.txt')).toBe(false);
    expect(f.read('src/one.txt')).toBe('one\n');
    expect(f.status().sort()).toEqual(
      [` M openspec/changes/${CHANGE}/tasks.md`, '?? src/one.txt'].sort(),
    );
    expect(f.state()).toMatchObject({ status: 'finished', outcome: 'stopped', choice: 'cleanup' });
  });

  it('SIGTERM stops the same way; with keep the branch stays at the last checkpoint', async () => {
    fixture = hangingFixture();
    const f = fixture;
    const live = f.spawn(['--json', '--on-complete', 'keep']);
    const pids = await agentHanging(f, live);
    strayGroup = pids.agent;

    live.signal('SIGTERM');
    const exit = await live.exited;
    expect(exit.code).toBe(130);
    expect(single(live.events, 'run.finished')).toMatchObject({
      outcome: 'stopped',
      choice: 'keep',
    });
    expect(await eventually(() => processGone(pids.child))).toBe(true);
    expect(await eventually(() => processGone(pids.agent))).toBe(true);

    expect(f.currentBranch()).toBe(`ralph/${CHANGE}`);
    expect(f.subjects(`main..ralph/${CHANGE}`)).toEqual(['initial state', 'checkpoint: 1']);
    expect(f.status()).toEqual([]);
    expect(f.exists('src/partial.txt')).toBe(false);
    // The partial work is not lost: it is saved under the attempt's ref.
    expect(f.git('show', `refs/ralphtool/${CHANGE}/attempts/2-1:src/partial.txt`)).toBe(
      'half-way\n',
    );
  });

  it('after ralphtool is killed outright, a new run is refused (exit 2) pointing to resume and finish', async () => {
    fixture = hangingFixture();
    const f = fixture;
    const live = f.spawn(['--json']);
    const pids = await agentHanging(f, live);
    strayGroup = pids.agent;

    live.signal('SIGKILL');
    await live.exited;
    expect(f.state()).toMatchObject({ status: 'active' });
    const head = f.git('rev-parse', 'HEAD');
    const branch = f.currentBranch();
    const status = f.status();
    const refs = f.git('for-each-ref');

    const again = await f.run(['--json']);
    expect(again.exitCode).toBe(2);
    const message = `${again.stderr}\n${again.stdout}`;
    expect(message).toContain(`ralphtool resume ${CHANGE}`);
    expect(message).toContain(`ralphtool finish ${CHANGE}`);
    expect(f.invoked('2', 2)).toBe(false);
    expect(f.git('rev-parse', 'HEAD')).toBe(head);
    expect(f.currentBranch()).toBe(branch);
    expect(f.status()).toEqual(status);
    expect(f.git('for-each-ref')).toBe(refs);
    expect(f.state()).toMatchObject({ status: 'active' });
  });
});

// What a stopped attempt leaves in state.json: the stop is no failure of the attempt (kind
// `stopped`, never `crash`), so it neither counts nor replaces the failure the next prompt is
// told about.
describe('an attempt stopped by the user', () => {
  it('is saved and reverted without counting, keeping the failure before it (exit 130)', async () => {
    fixture = new RunFixture(CHANGE, stories(2)).scenario({
      '1-1': [{ say: 'giving up' }, { signal: 'FAILED: the API is down' }],
      '1-2': [
        { write: 'src/partial.txt', content: 'half-way\n' },
        { say: 'working on attempt 2' },
        { hang: true },
      ],
    });
    const f = fixture;
    const live = f.spawn(['--json', '--on-complete', 'keep']);
    await live.waitFor((e) => e.type === 'agent.message' && e.text === 'working on attempt 2');
    expect(await eventually(() => typeof f.state().agentPgid === 'number')).toBe(true);
    strayGroup = f.state().agentPgid as number;

    live.signal('SIGINT');
    expect((await live.exited).code).toBe(130);

    const failed = live.events.filter((e) => e.type === 'attempt.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ attempt: 1, kind: 'failed-signal' });
    const reverted = live.events.filter((e) => e.type === 'checkpoint.reverted');
    expect(reverted.map((e) => e.attempt)).toEqual([1, 2]);
    expect(f.git('show', `refs/ralphtool/${CHANGE}/attempts/1-2:src/partial.txt`)).toBe(
      'half-way\n',
    );

    const state = f.state();
    expect(state).toMatchObject({
      status: 'active',
      outcome: 'stopped',
      choice: 'keep',
      currentStory: null,
      currentAttempt: null,
      agentPgid: null,
    });
    expect((state.stories as Record<string, unknown>)['1']).toMatchObject({
      attempts: 1,
      completed: false,
      lastFailure: { kind: 'failed-signal', reason: 'the API is down' },
    });
  });
});
