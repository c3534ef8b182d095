import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { eventually } from '../../support/processes.js';
import { crashWhileAgentRuns } from './support/crash.js';
import { ALL_SUCCEED, FaultWorld, type Step } from './support/world.js';

// Class 4, "the world around the run": another program's git works in the same repository at
// the same time (an editor polling `git status`, a `git commit` waiting for its message) and
// holds `.git/index.lock` for a while. ralphtool waits for it, never removes a lock whose
// holder is alive, and past its bound stops with one line naming the holder, resumable.

const CHANGE = 'live-locks';
const HOLDER = path.resolve('test/system/faults/support/lock-holder.mjs');
const POLLER = path.resolve('test/system/faults/support/git-poller.mjs');
const COMMIT_HOLDER = path.resolve('test/system/faults/support/commit-holder.mjs');

let world: FaultWorld | undefined;
const children: ChildProcess[] = [];
afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  world?.remove();
  world = undefined;
});

function start(script: string, args: readonly string[]): ChildProcess {
  const child = spawn(process.execPath, [script, ...args], { stdio: 'ignore' });
  children.push(child);
  return child;
}

/** A process that holds .git/index.lock like git does; its signal files live in `dir`. */
class Holder {
  readonly dir: string;
  readonly child: ChildProcess;
  constructor(w: FaultWorld, name: string, hold: { ms?: number; untilStep?: string } = {}) {
    this.dir = path.join(w.scratch, name);
    mkdirSync(this.dir, { recursive: true });
    const args = [path.join(w.dir, '.git', 'index.lock'), this.dir];
    if (hold.ms !== undefined) args.push(String(hold.ms));
    if (hold.untilStep !== undefined) args.push(w.stateFile, hold.untilStep);
    this.child = start(HOLDER, args);
  }
  /** The agent's steps that make the holder take the lock, and wait until it has. */
  get takeSteps(): Step[] {
    return [
      { write: path.join(this.dir, 'take'), content: '' },
      { waitFor: path.join(this.dir, 'taken') },
    ];
  }
  take(): void {
    writeFileSync(path.join(this.dir, 'take'), '');
  }
  async taken(): Promise<void> {
    expect(await eventually(() => existsSync(path.join(this.dir, 'taken')), 60_000)).toBe(true);
  }
  release(): void {
    writeFileSync(path.join(this.dir, 'release'), '');
  }
  /** `intact` when the lock was still its own when it let go, `stolen` when it was removed. */
  async result(): Promise<string> {
    const file = path.join(this.dir, 'result');
    expect(await eventually(() => existsSync(file), 60_000)).toBe(true);
    return readFileSync(file, 'utf8');
  }
  get pid(): number {
    return this.child.pid ?? -1;
  }
}

function expectByteCorrect(w: FaultWorld): void {
  expect(w.userFilesChanged()).toEqual([]);
  expect(w.exists('.git/index.lock')).toBe(false);
}

describe('an editor polls git in the repository during the whole run', () => {
  it('six stories, two failed attempts, then cleanup: green, every user byte back', async () => {
    world = new FaultWorld(CHANGE, 6).scenario({
      '2-1': [{ write: 'src/bad.txt', content: 'bad\n' }, { signal: 'FAILED: first try' }],
      '5-1': [{ append: 'docs/draft.md', content: 'agent\n' }, { signal: 'FAILED: again' }],
      ...ALL_SUCCEED,
    });
    const w = world;
    const stop = path.join(w.scratch, 'stop-poller');
    start(POLLER, [w.dir, stop]);
    const result = await w.loop('run', [], { onComplete: 'cleanup' });
    writeFileSync(stop, '');
    expect(await eventually(() => existsSync(`${stop}.count`), 30_000)).toBe(true);
    expect(Number(readFileSync(`${stop}.count`, 'utf8'))).toBeGreaterThan(0);

    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.currentBranch()).toBe('main');
    expect(w.branchExists(w.branch)).toBe(false);
    expect(w.attemptRefs()).toEqual([
      `refs/ralphtool/${CHANGE}/attempts/2-1`,
      `refs/ralphtool/${CHANGE}/attempts/5-1`,
    ]);
    expect(w.read('src/story.txt')).toBe('x\n');
    expect(w.exists('src/bad.txt')).toBe(false);
    expectByteCorrect(w);
    expect(w.state()).toMatchObject({ status: 'finished', outcome: 'complete', choice: 'cleanup' });
  });
});

describe('another process holds index.lock for a few seconds', () => {
  const VARIANTS: { name: string; op: string; end: Step[]; reverted: boolean }[] = [
    { name: 'during the accept', op: 'accept', end: [{ signal: 'COMPLETE' }], reverted: false },
    {
      name: 'during the revert',
      op: 'revert',
      end: [{ signal: 'FAILED: no' }],
      reverted: true,
    },
  ];

  it.each(VARIANTS)('$name: ralphtool waits, the lock is never removed', async (v) => {
    world = new FaultWorld(CHANGE, 2);
    const w = world;
    const holder = new Holder(w, 'holder', { ms: 3_000, untilStep: v.op });
    w.scenario({
      '1-1': [
        { write: 'src/one.txt', content: 'one\n' },
        { tick: 'all' },
        ...holder.takeSteps,
        ...v.end,
      ],
      ...ALL_SUCCEED,
    });
    const result = await w.loop('run');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await holder.result()).toBe('intact');
    expect(existsSync(path.join(holder.dir, 'step-seen'))).toBe(true);
    const subjects = w.subjects(`main..${w.branch}`);
    expect(subjects).toEqual(['initial state', 'checkpoint: 1', 'checkpoint: 2']);
    if (v.reverted) {
      expect(w.git('show', `refs/ralphtool/${CHANGE}/attempts/1-1:src/one.txt`)).toBe('one\n');
    } else {
      expect(w.git('show', `${w.branch}~1:src/one.txt`)).toBe('one\n');
    }
    expect(w.status()).toEqual([]);
    expectByteCorrect(w);
  });

  it.each(VARIANTS)(
    '$name, held by a real `git commit -a` waiting for its editor: ralphtool waits',
    async (v) => {
      world = new FaultWorld(CHANGE, 2);
      const w = world;
      const dir = path.join(w.scratch, 'commit');
      mkdirSync(dir, { recursive: true });
      start(COMMIT_HOLDER, [w.dir, dir, w.stateFile, v.op, '3000']);
      w.scenario({
        '1-1': [
          { write: 'src/one.txt', content: 'one\n' },
          { tick: 'all' },
          { write: path.join(dir, 'take'), content: '' },
          { waitFor: path.join(dir, 'taken') },
          ...v.end,
        ],
        ...ALL_SUCCEED,
      });
      const result = await w.loop('run');
      expect(result.exitCode, result.stderr).toBe(0);
      expect(readFileSync(path.join(dir, 'result'), 'utf8')).toBe('intact');
      expect(w.subjects(`main..${w.branch}`)).toEqual([
        'initial state',
        'checkpoint: 1',
        'checkpoint: 2',
      ]);
      expect(w.status()).toEqual([]);
      expectByteCorrect(w);
    },
  );

  it('during finish --cleanup of an interrupted run: waits, then brings the work back', async () => {
    world = new FaultWorld(CHANGE, 2).scenario({
      '1-1': [{ write: 'src/one.txt', content: 'one\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
      '2-1': [{ write: 'src/two.txt', content: 'half\n' }, { say: 'working' }, { hang: true }],
    });
    const w = world;
    await crashWhileAgentRuns(w, 'working');
    const holder = new Holder(w, 'holder', { ms: 3_000, untilStep: 'revert' });
    holder.take();
    await holder.taken();
    const result = await w.cli(['finish', CHANGE, '--cleanup']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(await holder.result()).toBe('intact');
    expect(w.currentBranch()).toBe('main');
    expect(w.read('src/one.txt')).toBe('one\n');
    expect(w.exists('src/two.txt')).toBe(false);
    expect(w.git('show', `refs/ralphtool/${CHANGE}/attempts/2-1:src/two.txt`)).toBe('half\n');
    expectByteCorrect(w);
  });
});

describe('another process holds index.lock and never lets go', () => {
  it('the run stops with one line naming the holder; resume after it is gone carries on', async () => {
    world = new FaultWorld(CHANGE, 2);
    const w = world;
    const holder = new Holder(w, 'holder');
    w.scenario({
      '1-1': [
        { write: 'src/one.txt', content: 'one\n' },
        { tick: 'all' },
        ...holder.takeSteps,
        { signal: 'COMPLETE' },
      ],
      ...ALL_SUCCEED,
    });
    const stopped = await w.loop('run');
    expect(stopped.exitCode, stopped.stderr).toBe(1);
    const lock = path.join(w.dir, '.git', 'index.lock');
    expect(stopped.stderr).toContain(`${lock} is held by node (pid ${holder.pid})`);
    expect(stopped.stderr).not.toMatch(/\n\s+at /); // no stack trace
    // The lock is still the holder's, and the run is recorded half-way through the accept.
    expect(existsSync(path.join(holder.dir, 'result'))).toBe(false);
    expect(w.exists('.git/index.lock')).toBe(true);
    expect(w.state()).toMatchObject({ status: 'active', step: { op: 'accept', storyId: '1' } });

    holder.release();
    expect(await holder.result()).toBe('intact');
    const resumed = await w.loop('resume');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(w.subjects(`main..${w.branch}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
    expect(w.git('show', `${w.branch}~1:src/one.txt`)).toBe('one\n');
    expect(w.status()).toEqual([]);
    expectByteCorrect(w);
    expect(w.state()).toMatchObject({ status: 'finished', outcome: 'complete' });
  });
});
