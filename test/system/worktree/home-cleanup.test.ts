import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { agentFlags, FaultWorld, type Step } from '../faults/support/world.js';
import { LiveCli } from '../../support/live-cli.js';

// A run in a worktree of its own, cleaned up: its work comes into the user's work tree as
// uncommitted changes next to what they did meanwhile, or not at all (docs/contract.md,
// "Bringing the work home (cleanup)").

const CHANGE = 'home-work';
let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

/** Two stories; the first waits for the test (the user working meanwhile) before it completes. */
function makeWorld(): FaultWorld {
  world = new FaultWorld(CHANGE, 2, { extraFiles: { 'src/app.txt': 'one\ntwo\nthree\n' } });
  const w = world;
  const go = path.join(w.scratch, 'go');
  const story1: Step[] = [
    { write: 'src/one.txt', content: 'one\n' },
    { waitFor: go },
    { tick: 'all' },
    { signal: 'COMPLETE' },
  ];
  const story2: Step[] = [
    { write: 'src/app.txt', content: 'one\nTWO by the run\nthree\n' },
    { write: 'src/two.bin', content: 'two\u0000\u00ff\n' },
    { delete: 'docs/stable.md' },
    { tick: 'all' },
    { signal: 'COMPLETE' },
  ];
  w.scenario({ '1-1': story1, '2-1': story2 });
  return w;
}

function worktreeOf(w: FaultWorld): string {
  return `${w.dir}.ralph/${CHANGE}`;
}

/** `run --worktree --on-complete cleanup`; `meanwhile` is the user working while story 1 runs. */
async function runWhileUserWorks(w: FaultWorld, meanwhile: () => void) {
  const live = w.spawn('run', ['--worktree'], { onComplete: 'cleanup' });
  await live.waitUntil(() => w.invoked('1', 1));
  meanwhile();
  w.rebaseline();
  const before = { index: w.git('ls-files', '--stage'), head: w.sha('HEAD') };
  writeFileSync(path.join(w.scratch, 'go'), '');
  const end = await live.exited;
  return { live, end, before };
}

function porcelain(w: FaultWorld): string[] {
  return w
    .git('status', '--porcelain=v1', '-uall')
    .split('\n')
    .filter((l) => l !== '')
    .sort();
}

describe('cleanup of a run in a worktree: the work comes into the user work tree', () => {
  it('brings the work home as unstaged changes next to the user edits, staged files and commits made meanwhile', async () => {
    const w = makeWorld();
    const { end, before, live } = await runWhileUserWorks(w, () => {
      w.write('docs/draft.md', 'draft v3, edited during the run\n');
      w.write('notes/new.txt', 'written during the run\n');
      w.write('README.md', '# demo project, staged\n');
      w.git('add', 'README.md');
      w.write('lib/mine.txt', 'committed during the run\n');
      w.git('add', 'lib/mine.txt');
      w.git('commit', '-q', '-m', 'my own commit meanwhile', '--', 'lib/mine.txt');
    });
    expect(end.code, live.stderr).toBe(0);

    // The user's files, ignored ones included, byte for byte (but the one the run deleted);
    // their index exactly as it was.
    expect(w.userFilesChanged()).toEqual(['removed: docs/stable.md']);
    expect(w.read('notes/new.txt')).toBe('written during the run\n');
    expect(w.git('ls-files', '--stage')).toBe(before.index);
    expect(w.sha('HEAD')).toBe(before.head);
    expect(w.currentBranch()).toBe('main');
    // The run's work: present, unstaged or untracked; binary bytes exact.
    expect(w.read('src/one.txt')).toBe('one\n');
    expect(w.read('src/app.txt')).toBe('one\nTWO by the run\nthree\n');
    expect(readFileSync(path.join(w.dir, 'src/two.bin'))).toEqual(Buffer.from('two\u0000\u00ff\n'));
    expect(existsSync(path.join(w.dir, 'docs/stable.md'))).toBe(false);
    expect(porcelain(w)).toEqual(
      [
        'M  README.md',
        ' M docs/draft.md',
        ' D docs/stable.md',
        ` M ${w.tasksPath}`,
        ' M src/app.txt',
        '?? notes/new.txt',
        '?? notes/todo.txt',
        '?? src/one.txt',
        '?? src/two.bin',
      ].sort(),
    );
    // The run is gone: worktree, branch, state finished.
    expect(existsSync(worktreeOf(w))).toBe(false);
    expect(w.git('worktree', 'list', '--porcelain')).not.toContain(worktreeOf(w));
    expect(w.branchExists(w.branch)).toBe(false);
    expect(w.state()).toMatchObject({ status: 'finished', choice: 'cleanup', step: null });
    const finished = live.events.find((e) => e.type === 'run.finished');
    expect(finished).toMatchObject({ choice: 'cleanup', home: w.dir });
  });

  const COLLISIONS: [string, (w: FaultWorld) => void, string][] = [
    [
      'an uncommitted edit of the same lines',
      (w) => w.write('src/app.txt', 'one\nTWO mine\nthree\n'),
      'src/app.txt',
    ],
    [
      'a commit of the same lines on main',
      (w) => {
        w.write('src/app.txt', 'one\nTWO committed\nthree\n');
        w.git('commit', '-q', '-m', 'mine', '--', 'src/app.txt');
      },
      'src/app.txt',
    ],
    [
      'an untracked file where the run adds one',
      (w) => w.write('src/one.txt', 'my own one\n'),
      'src/one.txt',
    ],
    [
      'an edit of a file the run deletes',
      (w) => w.write('docs/stable.md', 'still needed\n'),
      'docs/stable.md',
    ],
  ];

  it.each(COLLISIONS)(
    'stops on %s: one message naming the file, nothing applied, the run still recorded with its branch',
    async (_name, collide, file) => {
      const w = makeWorld();
      const { end, before, live } = await runWhileUserWorks(w, () => collide(w));
      expect(end.code).toBe(1);
      const stderr = live.stderr;
      expect(stderr).toContain('collides with your changes');
      expect(stderr).toContain(file);
      expect(stderr).toContain(`git merge --squash ${w.branch}`);
      expect(stderr).not.toMatch(/\n\s+at /); // no stack trace
      // Nothing of the user's touched, nothing of the run's applied.
      expect(w.userFilesChanged()).toEqual([]);
      expect(w.git('ls-files', '--stage')).toBe(before.index);
      expect(w.sha('HEAD')).toBe(before.head);
      expect(w.git('diff', `${before.head}`, '--', w.tasksPath)).toBe('');
      if (file !== 'src/one.txt') expect(existsSync(path.join(w.dir, 'src/one.txt'))).toBe(false);
      // The run stays recorded for `finish`, its branch and worktree kept.
      expect(w.branchExists(w.branch)).toBe(true);
      expect(existsSync(worktreeOf(w))).toBe(true);
      expect(w.state()).toMatchObject({ status: 'active', step: null });
    },
  );

  it('after a collision, finish --cleanup applies once the user dropped the colliding edit', async () => {
    const w = makeWorld();
    const { end } = await runWhileUserWorks(w, () =>
      w.write('src/app.txt', 'one\nTWO mine\nthree\n'),
    );
    expect(end.code).toBe(1);
    // The user drops their edit and asks again: now it applies.
    w.git('checkout', '--', 'src/app.txt');
    w.rebaseline();
    const done = await w.cli(['-C', worktreeOf(w), 'finish', CHANGE, '--cleanup']);
    expect(done.exitCode, done.stderr).toBe(0);
    expect(done.stderr).toContain(`the work is in ${w.dir} as uncommitted changes`);
    expect(w.read('src/app.txt')).toBe('one\nTWO by the run\nthree\n');
    expect(w.userFilesChanged()).toEqual(['removed: docs/stable.md']); // the run deleted it
    expect(w.branchExists(w.branch)).toBe(false);
    expect(existsSync(worktreeOf(w))).toBe(false);
  });
});

describe('cleanup of a run in a worktree: refusals', () => {
  it('refuses, nothing touched, while the user work tree is on another branch; applies once back', async () => {
    const w = makeWorld();
    const { end, live } = await runWhileUserWorks(w, () =>
      w.git('switch', '-q', '-c', 'elsewhere'),
    );
    expect(end.code, live.stderr).toBe(2);
    expect(live.stderr).toContain('is on elsewhere, not on main');
    expect(w.userFilesChanged()).toEqual([]);
    expect(existsSync(path.join(w.dir, 'src/one.txt'))).toBe(false);
    expect(w.branchExists(w.branch)).toBe(true);
    expect(w.state()).toMatchObject({ status: 'active', step: null });

    w.git('switch', '-q', 'main');
    const done = await w.cli(['-C', worktreeOf(w), 'finish', CHANGE, '--cleanup']);
    expect(done.exitCode, done.stderr).toBe(0);
    expect(w.read('src/one.txt')).toBe('one\n');
  });
});

describe('cleanup of a run in a worktree: a merge half-way in the user work tree', () => {
  it('refuses, nothing touched, while a merge of theirs waits for its conflicts', async () => {
    const w = makeWorld();
    const { end, live } = await runWhileUserWorks(w, () => {
      w.git('switch', '-q', '-c', 'side');
      w.write('README.md', '# side\n');
      w.git('commit', '-q', '-am', 'side');
      w.git('switch', '-q', 'main');
      w.write('README.md', '# main\n');
      w.git('commit', '-q', '-am', 'main');
      expect(() => w.git('merge', '-q', 'side')).toThrow();
    });
    expect(end.code, live.stderr).toBe(2);
    expect(live.stderr).toContain('a merge is in progress in your work tree');
    expect(w.userFilesChanged()).toEqual([]);
    expect(existsSync(path.join(w.dir, 'src/one.txt'))).toBe(false);
    expect(w.git('diff', '--name-only', '--diff-filter=U')).toBe('README.md\n');
    expect(w.state()).toMatchObject({ status: 'active', step: null });
  });
});

describe('cleanup of a run in a worktree: what the user has not committed', () => {
  it('brings the ticks into a change folder the user never committed (the merge base is the run start)', async () => {
    world = new FaultWorld(CHANGE, 1);
    const w = world;
    w.git('rm', '-r', '-q', '--cached', `openspec/changes/${CHANGE}`);
    w.git('commit', '-q', '-m', 'the change is not committed yet');
    w.rebaseline();
    const tasksBefore = w.read(w.tasksPath);
    w.scenario({
      '1-1': [{ write: 'src/one.txt', content: 'one\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
    });
    const run = await w.loop('run', ['--worktree'], { onComplete: 'cleanup' });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(w.read(w.tasksPath)).toBe(tasksBefore.replace('- [ ]', '- [x]'));
    expect(w.read('src/one.txt')).toBe('one\n');
    expect(w.userFilesChanged()).toEqual([]);
    expect(w.branchExists(w.branch)).toBe(false);
  });
});

describe('cleanup of a run in a worktree: what the headless output says', () => {
  it('names the user work tree the work is in, uncommitted', async () => {
    world = new FaultWorld(CHANGE, 1);
    const w = world;
    w.scenario({
      '1-1': [{ write: 'src/one.txt', content: 'one\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
    });
    const run = await w.cli([
      'run',
      CHANGE,
      ...agentFlags(),
      '--worktree',
      '--on-complete',
      'cleanup',
    ]);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stdout + run.stderr).toContain(
      `cleanup: the work is in ${w.dir} as uncommitted changes (on main)`,
    );
  });
});

describe('cleanup of a run in a worktree while another ralphtool works in the user work tree', () => {
  it('is refused with nothing applied, and the run stays recorded', async () => {
    const other = 'other-change';
    world = new FaultWorld(CHANGE, 1, {
      extraFiles: {
        [`openspec/changes/${other}/proposal.md`]: '# other\n\nWhy: a test.\n',
        [`openspec/changes/${other}/tasks.md`]: '## 1. Other\n\n- [ ] 1.1 do it\n',
      },
    });
    const w = world;
    const goMine = path.join(w.scratch, 'go-mine');
    const goOther = path.join(w.scratch, 'go-other');
    w.scenario({
      '1-1': [
        { write: 'src/one.txt', content: 'one\n' },
        { waitFor: goMine },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    const otherScenario = path.join(w.scratch, 'other.json');
    const otherLog = path.join(w.scratch, 'other-log');
    writeFileSync(
      otherScenario,
      JSON.stringify({ '*': [{ waitFor: goOther }, { signal: 'FAILED: not today' }] }),
    );
    const mine = w.spawn('run', ['--worktree'], { onComplete: 'cleanup' });
    await mine.waitUntil(() => w.invoked('1', 1));
    // Another change run in the user's own work tree (no worktree): it holds that tree's lock.
    const second = new LiveCli(
      ['run', other, ...agentFlags(), '--json', '--on-complete', 'keep', '--max-retries', '1'],
      w.dir,
      w.env({ FAKE_AGENT_SCENARIO: otherScenario, FAKE_AGENT_LOG_DIR: otherLog }),
    );
    try {
      await second.waitUntil(() => existsSync(path.join(otherLog, 'invocation-1-1.json')));
      writeFileSync(goMine, '');
      const end = await mine.exited;
      expect(end.code, mine.stderr).toBe(2);
      expect(mine.stderr).toContain(`ralphtool is running ${other} in your work tree ${w.dir}`);
      expect(existsSync(path.join(w.dir, 'src/one.txt'))).toBe(false);
      expect(w.branchExists(w.branch)).toBe(true);
      expect(w.state()).toMatchObject({ status: 'active', step: null });
    } finally {
      writeFileSync(goOther, '');
      await second.exited;
    }
  });
});

describe('finish --cleanup of a kept, incomplete run in a worktree', () => {
  it('brings the accepted stories home, keeps the worktree with --keep-worktree (detached), deletes the branch', async () => {
    world = new FaultWorld(CHANGE, 2);
    const w = world;
    w.scenario({
      '1-1': [{ write: 'src/one.txt', content: 'one\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
      '2-*': [{ write: 'src/bad.txt', content: 'bad\n' }, { signal: 'FAILED: cannot' }],
    });
    const kept = await w.loop('run', ['--worktree', '--keep-worktree', '--max-retries', '1']);
    expect(kept.exitCode).not.toBe(0);
    expect(w.state()).toMatchObject({ status: 'active', choice: 'keep' });
    const checkpoint = w.sha(w.branch);

    const done = await w.cli(['-C', worktreeOf(w), 'finish', CHANGE, '--cleanup']);
    expect(done.exitCode, done.stderr).toBe(0);
    expect(w.read('src/one.txt')).toBe('one\n');
    expect(existsSync(path.join(w.dir, 'src/bad.txt'))).toBe(false);
    expect(w.userFilesChanged()).toEqual([]);
    expect(w.branchExists(w.branch)).toBe(false);
    // --keep-worktree: the worktree stays, detached at the checkpoint, with nothing changed.
    expect(existsSync(path.join(worktreeOf(w), 'src/one.txt'))).toBe(true);
    expect(w.git('-C', worktreeOf(w), 'rev-parse', 'HEAD').trim()).toBe(checkpoint);
    expect(w.git('-C', worktreeOf(w), 'status', '--porcelain')).toBe('');
    expect(w.state()).toMatchObject({ status: 'finished', choice: 'cleanup' });
  });
});

type Reached = 'marker' | 'applied' | 'removed' | 'deleted';

describe('a cleanup of a run in a worktree interrupted by kill -9', () => {
  it.each<Reached>(['marker', 'applied', 'removed', 'deleted'])(
    'after "%s": finish --cleanup completes it, the work there once',
    async (reached) => {
      world = new FaultWorld(CHANGE, 2);
      const w = world;
      w.scenario({
        '1-1': [
          { write: 'src/one.txt', content: 'one\n' },
          { tick: 'all' },
          { signal: 'COMPLETE' },
        ],
        '2-1': [
          { append: 'docs/stable.md', content: 'more\n' },
          { tick: 'all' },
          { signal: 'COMPLETE' },
        ],
      });
      const run = await w.loop('run', ['--worktree', '--keep-worktree']);
      expect(run.exitCode, run.stderr).toBe(0);
      const state = w.state();
      const base = String(state.baseSha);
      const checkpoint = String(state.checkpointSha);
      w.writeState({
        ...state,
        status: 'active',
        choice: null,
        step: { op: 'cleanup' },
        pid: 999_999_999,
        home: { ...(state.home as Record<string, unknown>), keepWorktree: false },
      });
      const worktree = worktreeOf(w);
      if (reached !== 'marker') {
        // What the apply wrote: the run's difference, into the user's work tree only.
        const patch = w.git('diff', '--binary', base, checkpoint);
        writeFileSync(path.join(w.scratch, 'home.patch'), patch);
        w.git('apply', path.join(w.scratch, 'home.patch'));
      }
      if (reached === 'removed' || reached === 'deleted') {
        w.git('-C', worktree, 'update-ref', '--no-deref', 'HEAD', checkpoint);
        w.git('worktree', 'remove', worktree);
      }
      if (reached === 'deleted') w.git('branch', '-q', '-D', w.branch);
      const where = existsSync(worktree) ? ['-C', worktree] : [];
      const done = await w.cli([...where, 'finish', CHANGE, '--cleanup']);
      expect(done.exitCode, done.stderr).toBe(0);

      expect(w.read('src/one.txt')).toBe('one\n');
      expect(w.read('docs/stable.md')).toBe(`${w.git('show', `${base}:docs/stable.md`)}more\n`);
      expect(porcelain(w)).toEqual(
        [
          ' M docs/draft.md',
          ' M docs/stable.md',
          ` M ${w.tasksPath}`,
          '?? notes/todo.txt',
          '?? src/one.txt',
        ].sort(),
      );
      expect(w.userFilesChanged()).toEqual(['content changed: docs/stable.md']);
      expect(existsSync(worktree)).toBe(false);
      expect(w.branchExists(w.branch)).toBe(false);
      expect(w.state()).toMatchObject({ status: 'finished', choice: 'cleanup', step: null });
    },
  );
});
