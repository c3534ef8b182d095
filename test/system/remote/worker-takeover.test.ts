import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { EventJson, LiveCli } from '../../support/live-cli.js';
import type { Step } from '../../support/fake-agent.js';
import {
  eventually,
  groupMembers,
  killGroup,
  recordedAgentGroup,
} from '../../support/processes.js';
import { cleanGitEnv } from '../../support/temp-repo.js';
import type { Machine } from './world.js';
import { WorkerWorld } from './worker-world.js';

// A worker that dies (kill -9) or is stopped (Ctrl-C) mid-story: another worker takes its change
// over, on this host at once, from another host once the claim's heartbeat is older than the TTL.

const CHANGE = 'add-a';
const DONE: Step[] = [{ tick: 'all' }, { say: 'done' }, { signal: 'COMPLETE' }];
let world: WorkerWorld | undefined;
const lives: LiveCli[] = [];
afterEach(async () => {
  for (const live of lives.splice(0)) await live.kill9().catch(() => undefined);
  world?.remove();
  world = undefined;
});

/**
 * Story 1 done, story 2's first attempt held until the test ends; later attempts succeed (and
 * the same attempt started again: a stopped attempt does not count).
 */
function heldInStory2(w: WorkerWorld): void {
  w.scenarios({
    [CHANGE]: {
      '1-1': DONE,
      '2-1#2': DONE,
      '2-1': [
        { write: 'src/half.txt', content: 'half\n' },
        { say: 'working' },
        { waitFor: path.join(w.scratch, 'never') },
      ],
      '*': DONE,
    },
  });
}

/** A worker on `machine` held in story 2, once the remote knows story 2 began. */
async function workerInStory2(w: WorkerWorld, machine: Machine): Promise<LiveCli> {
  const first = w.worker(machine);
  lives.push(first);
  await first.waitFor((e) => e.type === 'agent.message' && e.text === 'working');
  expect(await eventually(() => w.remoteState(CHANGE)?.currentStory === '2', 60_000)).toBe(true);
  return first;
}

function statePath(machine: Machine): string {
  return path.join(machine.dir, '.git', 'ralphtool', CHANGE, 'state.json');
}

async function killWorker(live: LiveCli, machine: Machine): Promise<void> {
  const pgid = await recordedAgentGroup(
    () => JSON.parse(readFileSync(statePath(machine), 'utf8')) as Record<string, unknown>,
  );
  await live.kill9();
  killGroup(pgid);
  await eventually(() => groupMembers(pgid).length === 0);
}

function took(live: LiveCli): EventJson[] {
  return live.events.filter((e) => e.type === 'worker.took');
}

describe('a worker killed mid-story', { timeout: 240_000 }, () => {
  it('on this host: another worker takes the change over at once and finishes it', async () => {
    const w = (world = new WorkerWorld({ [CHANGE]: 2 }));
    heldInStory2(w);
    const one = w.clone('one');
    await killWorker(await workerInStory2(w, one), one);
    expect(w.remote('for-each-ref', `refs/ralphtool/${CHANGE}/claim`)).not.toBe('');

    // The default TTL is 15 minutes: only "its process on this host is gone" lets it through.
    const second = w.worker(w.clone('two'));
    lives.push(second);
    const end = await second.exited;
    expect(end.code, second.stderr).toBe(0);
    expect(took(second)).toMatchObject([{ change: CHANGE, action: 'resume-from' }]);
    expect(second.events.find((e) => e.type === 'claim.taken')).toMatchObject({
      change: CHANGE,
    });
    expect(w.remoteState(CHANGE)).toMatchObject({ status: 'finished', choice: 'keep' });
    // Story 1 once, story 2's attempt cut by the kill and the one that finished it: nothing else.
    expect(w.starts()).toEqual(
      new Map([
        [`${CHANGE}.1-1`, 1],
        [`${CHANGE}.2-1`, 1],
        [`${CHANGE}.2-2`, 1],
      ]),
    );
  });

  it('on another host: left while its heartbeat is fresh, taken over once it is older than --claim-ttl', async () => {
    const w = (world = new WorkerWorld({ [CHANGE]: 2 }));
    heldInStory2(w);
    const one = w.clone('one');
    await killWorker(await workerInStory2(w, one), one);
    // The dead worker's claim, as a machine elsewhere wrote it: this host cannot ask its process.
    plantClaim(w, one, {
      change: CHANGE,
      host: 'elsewhere.example',
      pid: 4242,
      token: 'planted',
      startedAt: new Date().toISOString(),
      heartbeatAt: new Date().toISOString(),
    });

    // A TTL the second worker's start cannot outlast on a loaded machine (it took 3 s with 2 s,
    // and saw the heartbeat stale at its first look): the claim must be seen fresh first.
    const second = w.worker(w.clone('two'), ['--claim-ttl', '10s', '--watch', '200ms']);
    lives.push(second);
    await second.waitFor((e) => e.type === 'worker.skipped' && e.skip === 'claimed');
    const resumed = await second
      .waitFor((e) => e.type === 'worker.ran' && e.change === CHANGE, 180_000)
      .catch((error: unknown) => {
        // What the worker got to, for a run that never ended.
        throw new Error(`${String(error)}\nevents: ${second.types().join(' ')}`);
      });
    expect(resumed).toMatchObject({ action: 'resume-from', exitCode: 0 });
    // Taken over only once the heartbeat was older than the TTL, from the planted claim.
    const takenAt = second.events.find((e) => e.type === 'claim.taken');
    expect(JSON.stringify(takenAt)).toContain('elsewhere.example');
    expect(w.remoteState(CHANGE)).toMatchObject({ status: 'finished' });
    expect(w.starts().get(`${CHANGE}.2-2`)).toBe(1);
    second.signal('SIGINT');
    expect((await second.exited).code).toBe(130);
  });
});

describe('a worker stopped with Ctrl-C mid-story', { timeout: 240_000 }, () => {
  it('gives its claim back and records the run stopped; the next worker resumes it', async () => {
    const w = (world = new WorkerWorld({ [CHANGE]: 2 }));
    heldInStory2(w);
    const one = w.clone('one');
    const first = await workerInStory2(w, one);
    first.signal('SIGINT');
    const end = await first.exited;
    expect(end.code, first.stderr).toBe(130);
    expect(first.events.find((e) => e.type === 'worker.ended')).toMatchObject({ exitCode: 130 });
    expect(w.remote('for-each-ref', `refs/ralphtool/${CHANGE}/claim`).trim()).toBe('');
    expect(w.remoteState(CHANGE)).toMatchObject({ status: 'active', outcome: 'stopped' });
    expect(first.stderr).not.toMatch(/internal error/);

    const second = w.worker(w.clone('two'));
    lives.push(second);
    expect((await second.exited).code, second.stderr).toBe(0);
    expect(took(second)).toMatchObject([{ change: CHANGE, action: 'resume-from' }]);
    expect(w.remoteState(CHANGE)).toMatchObject({ status: 'finished' });
    // The stopped attempt did not count: story 2's first attempt started again, on machine two.
    expect(w.starts().get(`${CHANGE}.2-1`)).toBe(2);
    expect(w.starts().has(`${CHANGE}.2-2`)).toBe(false);
  });
});

/** A claim written into the remote by hand, as another machine's ralphtool would. */
function plantClaim(w: WorkerWorld, machine: Machine, info: Record<string, unknown>): void {
  const env = cleanGitEnv();
  const run = (args: string[], input?: string): string =>
    execFileSync('git', args, { cwd: machine.dir, env, input, encoding: 'utf8' }).trim();
  const blob = run(['hash-object', '-w', '--stdin'], `${JSON.stringify(info)}\n`);
  const tree = run(['mktree'], `100644 blob ${blob}\tclaim.json\n`);
  const commit = run(['commit-tree', tree, '-m', 'ralphtool claim: planted']);
  run(['push', '-q', '--force', 'origin', `${commit}:refs/ralphtool/${CHANGE}/claim`]);
  writeFileSync(path.join(w.scratch, 'planted'), commit);
}
