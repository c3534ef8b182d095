import { afterEach, describe, expect, it } from 'vitest';
import type { CheckpointRun } from '../../src/checkpoint/checkpoint.js';
import { openRun } from '../../src/checkpoint/open.js';
import { NO_FIGURES } from '../../src/checkpoint/records.js';
import { startRun } from '../../src/checkpoint/start.js';
import { readRunState, writeRunState } from '../../src/checkpoint/state.js';
import type { RunState } from '../../src/checkpoint/state.js';
import { makeRepo, runLocation } from '../git/helpers.js';
import type { TempRepo } from '../git/helpers.js';

// What each step of the loop records in state.json, through the CheckpointRun's own methods
// (the loop has no other way to write the record).

const repos: TempRepo[] = [];
afterEach(() => {
  for (const made of repos.splice(0)) made.remove();
});

async function started(): Promise<{ r: TempRepo; run: CheckpointRun }> {
  const r = makeRepo();
  repos.push(r);
  const run = await startRun(runLocation(r.dir, 'add-auth'));
  return { r, run };
}

async function onDisk(run: CheckpointRun): Promise<RunState> {
  const state = await readRunState(run.paths.state);
  if (!state) throw new Error('no state file');
  return state;
}

const FAILURE = { kind: 'failed-signal', reason: 'the API is down' } as const;

describe('startAttempt and recordAgent', () => {
  it('count the attempt and mark it running before the agent starts, then keep its group', async () => {
    const { run } = await started();
    await run.startAttempt('1', 1);
    expect(await onDisk(run)).toMatchObject({
      currentStory: '1',
      currentAttempt: 1,
      stories: { '1': { attempts: 1, completed: false, costUsd: 0, lastFailure: null } },
      agentPgid: null,
    });
    await run.recordAgent(4242, 'boot-1:777');
    expect(await onDisk(run)).toMatchObject({ agentPgid: 4242, agentIdentity: 'boot-1:777' });
  });
});

describe('revertAttempt', () => {
  it('a failed attempt counts against the story and is remembered for the next prompt', async () => {
    const { r, run } = await started();
    await run.startAttempt('1', 1);
    await run.recordAgent(4242, 'boot-1:777');
    r.write('work.txt', 'half\n');
    const { savedRef, toSha } = await run.revertAttempt('1', 1, {
      ended: 'failed',
      failure: FAILURE,
      figures: { costUsd: 0.5, durationMs: 2000 },
    });
    expect(toSha).toBe(run.checkpointSha);
    expect(r.git('show', `${savedRef}:work.txt`)).toBe('half');
    expect(r.git('status', '--porcelain')).toBe('');
    expect(await onDisk(run)).toMatchObject({
      step: null,
      currentStory: null,
      currentAttempt: null,
      agentPgid: null,
      agentIdentity: null,
      costUsd: 0.5,
      stories: {
        '1': {
          attempts: 1,
          completed: false,
          costUsd: 0.5,
          durationMs: 2000,
          lastFailure: FAILURE,
        },
      },
    });
  });

  it.each(['stopped', 'fatal'] as const)(
    'a %s attempt is reverted but not counted, and the failure before it stays',
    async (ended) => {
      const { r, run } = await started();
      await run.startAttempt('1', 1);
      await run.revertAttempt('1', 1, {
        ended: 'failed',
        failure: FAILURE,
        figures: { costUsd: 0.5, durationMs: 2000 },
      });
      await run.startAttempt('1', 2);
      expect(run.progressOf('1').attempts).toBe(2);
      r.write('work.txt', 'interrupted\n');
      const { savedRef } = await run.revertAttempt('1', 2, {
        ended,
        figures: { costUsd: 0.25, durationMs: 1000 },
      });
      expect(savedRef).toBe('refs/ralphtool/add-auth/attempts/1-2');
      expect(r.git('show', `${savedRef}:work.txt`)).toBe('interrupted');
      expect(r.git('status', '--porcelain')).toBe('');
      const state = await onDisk(run);
      // What it spent still counts; the attempt itself does not, so a resume tries it afresh.
      expect(state).toMatchObject({ currentStory: null, currentAttempt: null, costUsd: 0.75 });
      expect(state.stories['1']).toEqual({
        attempts: 1,
        completed: false,
        costUsd: 0.75,
        durationMs: 3000,
        lastFailure: FAILURE,
        // Each counted failure is kept, in order (for the checkpoint's body and `report`).
        failures: [{ attempt: 1, ...FAILURE }],
      });
    },
  );

  it('the plain revert (a repair) records nothing about the attempt', async () => {
    const { r, run } = await started();
    await run.startAttempt('1', 1);
    r.write('work.txt', 'leftover\n');
    await run.revert('1', 1);
    expect(await onDisk(run)).toMatchObject({
      step: null,
      currentStory: '1',
      currentAttempt: 1,
      stories: { '1': { attempts: 1, lastFailure: null } },
    });
  });
});

describe('acceptStory', () => {
  it('commits the checkpoint, completes the story with its figures and ends the attempt', async () => {
    const { r, run } = await started();
    await run.startAttempt('1', 1);
    await run.revertAttempt('1', 1, {
      ended: 'failed',
      failure: FAILURE,
      figures: { costUsd: 0.5, durationMs: 2000 },
    });
    await run.startAttempt('1', 2);
    await run.recordAgent(4242, 'boot-1:777');
    r.write('done.txt', 'done\n');
    const body = 'Story one\n\nRalphtool-Change: add-auth\nRalphtool-Story: 1';
    const sha = await run.acceptStory('1', { costUsd: 0.25, durationMs: 1000 }, { body });
    expect(r.git('rev-parse', 'HEAD')).toBe(sha);
    expect(r.git('log', '-1', '--format=%s')).toBe('checkpoint: 1');
    expect(r.git('log', '-1', '--format=%B').trim()).toBe(`checkpoint: 1\n\n${body}`);
    const state = await onDisk(run);
    expect(state).toMatchObject({
      checkpointSha: sha,
      step: null,
      currentStory: null,
      currentAttempt: null,
      agentPgid: null,
      agentIdentity: null,
      costUsd: 0.75,
    });
    expect(state.stories['1']).toEqual({
      attempts: 2,
      completed: true,
      costUsd: 0.75,
      durationMs: 3000,
      lastFailure: null,
      failures: [{ attempt: 1, ...FAILURE }],
    });
  });
});

/** The parts of the record an accept writes (times and shas differ between repositories). */
function acceptRecord(state: RunState): Partial<RunState> {
  const { stories, currentStory, currentAttempt, agentPgid, agentIdentity, costUsd, step } = state;
  return { stories, currentStory, currentAttempt, agentPgid, agentIdentity, costUsd, step };
}

/** Story 1's attempt 2 about to be accepted, after a failed attempt 1, with its agent recorded. */
async function readyToAccept(): Promise<{ r: TempRepo; run: CheckpointRun }> {
  const { r, run } = await started();
  await run.startAttempt('1', 1);
  await run.revertAttempt('1', 1, {
    ended: 'failed',
    failure: FAILURE,
    figures: { costUsd: 0.5, durationMs: 2000 },
  });
  await run.startAttempt('1', 2);
  await run.recordAgent(4242, 'boot-1:777');
  r.write('done.txt', 'done\n');
  return { r, run };
}

describe('an accept interrupted by a crash', () => {
  const figures = { costUsd: 0.25, durationMs: 1000 };

  it('is finished with the very record acceptStory writes', async () => {
    const body = 'Story one\n\nRalphtool-Story: 1';
    const direct = await readyToAccept();
    await direct.run.acceptStory('1', figures, { body });

    const crashed = await readyToAccept();
    // The step marker is the accept's first write: a crash right after it leaves this.
    await writeRunState(crashed.run.paths.state, {
      ...crashed.run.state,
      step: { op: 'accept', storyId: '1', figures, body },
    });
    const reopened = await openRun(runLocation(crashed.r.dir, 'add-auth'));
    expect(await reopened.finishInterruptedStep()).toMatchObject({ op: 'accept', storyId: '1' });

    expect(acceptRecord(await onDisk(reopened))).toEqual(acceptRecord(await onDisk(direct.run)));
    expect(crashed.r.git('log', '-1', '--format=%s')).toBe('checkpoint: 1');
    // The body too: the marker keeps it.
    expect(crashed.r.git('log', '-1', '--format=%B')).toBe(
      direct.r.git('log', '-1', '--format=%B'),
    );
    expect(reopened.checkpointSha).toBe(crashed.r.git('rev-parse', 'HEAD'));
  });

  it('left by an older ralphtool (no figures in the marker) records the rest the same way', async () => {
    const direct = await readyToAccept();
    await direct.run.acceptStory('1', NO_FIGURES);

    const crashed = await readyToAccept();
    await writeRunState(crashed.run.paths.state, {
      ...crashed.run.state,
      step: { op: 'accept', storyId: '1' },
    });
    const reopened = await openRun(runLocation(crashed.r.dir, 'add-auth'));
    await reopened.ensureAtCheckpoint();
    expect(acceptRecord(await onDisk(reopened))).toEqual(acceptRecord(await onDisk(direct.run)));
    expect(reopened.progressOf('1')).toMatchObject({ completed: true, costUsd: 0.5 });
  });
});

describe('the run around the attempts', () => {
  it('claim, recordOutcome and release say which process runs the loop and how it ended', async () => {
    const { run } = await started();
    await run.recordAgent(4242, 'boot-1:777');
    await run.claim(99999);
    expect(await onDisk(run)).toMatchObject({ pid: 99999, agentPgid: null, status: 'active' });
    await run.recordOutcome('error');
    await run.release();
    expect(await onDisk(run)).toMatchObject({ pid: null, outcome: 'error', status: 'active' });
  });
});
