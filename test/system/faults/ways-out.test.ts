import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { initialRunState } from '../../../src/checkpoint/start.js';
import { crashWhileAgentRuns, deadPid, writeStaleLock } from './support/crash.js';
import { FaultWorld, succeed } from './support/world.js';
import { snapshotTree } from './support/snapshot.js';
import {
  adviceCommand,
  followAdvice,
  gitIn,
  runStatus,
  treeFingerprint,
} from './support/ways-out.js';

// Class 5, "states with no way out": each state that can still arise after `checkout -B` gets
// a `status` line saying what happened and one command; the tests read that line, run exactly
// that command (and the next one status names, until the run is finished), and check the end.

const CHANGE = 'ways-out';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

type Obstacle = 'nested repository' | 'failing filter';

/** Something that makes `git add -A` fail from now on (after the start's check passed). */
function block(w: FaultWorld, obstacle: Obstacle): void {
  if (obstacle === 'nested repository') {
    mkdirSync(path.join(w.dir, 'vendor/lib'), { recursive: true });
    gitIn(path.join(w.dir, 'vendor/lib'), 'init', '-q');
  } else {
    // The attributes file is the user's (written before the start); the filter breaks now.
    w.git('config', 'filter.broken.clean', 'false');
    w.git('config', 'filter.broken.required', 'true');
  }
}

describe('a start that stopped between checkout -B and its first commit, which git now refuses', () => {
  const CASES: { obstacle: Obstacle; reached: 'checkout' | 'add'; from: 'branch' | 'detached' }[] =
    [
      { obstacle: 'nested repository', reached: 'checkout', from: 'branch' },
      { obstacle: 'failing filter', reached: 'checkout', from: 'branch' },
      { obstacle: 'nested repository', reached: 'add', from: 'branch' },
      { obstacle: 'nested repository', reached: 'checkout', from: 'detached' },
    ];

  it.each(CASES)(
    '$obstacle after "$reached" (from a $from HEAD): status names finish --cleanup, which puts everything back',
    async ({ obstacle, reached, from }) => {
      world = new FaultWorld(CHANGE, 1).scenario({ '*': succeed('src/x.txt', 'x\n') });
      const w = world;
      if (from === 'detached') w.git('checkout', '-q', '--detach', 'main');
      const sha = w.sha('HEAD');
      const head =
        from === 'detached'
          ? { kind: 'detached' as const, sha }
          : { kind: 'branch' as const, name: 'main', sha };
      w.writeState({ ...initialRunState(CHANGE, w.branch, head), pid: deadPid() });
      writeStaleLock(path.join(w.runDir, 'lock'), CHANGE);
      if (obstacle === 'failing filter') w.write('docs/.gitattributes', '*.md filter=broken\n');
      const before = treeFingerprint(w.dir);
      w.git('checkout', '-q', '-B', w.branch);
      if (reached === 'add') w.git('add', '-A', '--', 'docs/draft.md', 'notes');
      block(w, obstacle);

      // Resuming cannot get out: the commit fails again.
      expect((await w.loop('resume')).exitCode).not.toBe(0);

      const status = await runStatus(w);
      expect(status.next).toContain('stopped before the run began');
      expect(adviceCommand(String(status.next))).toEqual([
        'ralphtool',
        'finish',
        CHANGE,
        '--cleanup',
      ]);
      const { followed } = await followAdvice(w);
      expect(followed).toHaveLength(1);
      const after = treeFingerprint(w.dir);
      if (obstacle === 'nested repository') {
        // The only new files are the nested repository's own, left as they are.
        after.files = (after.files as [string, unknown][]).filter(([f]) => !f.startsWith('vendor'));
      }
      expect(after).toEqual(before);
      expect(w.branchExists(w.branch)).toBe(false);
      expect(w.userFilesChanged()).toEqual([]);
      expect(w.state()).toMatchObject({ status: 'finished', choice: 'cleanup', step: null });
    },
  );
});

/** A two-story run killed while the agent works on story 2 (story 1 accepted). */
async function interruptedMidLoop(): Promise<FaultWorld> {
  world = new FaultWorld(CHANGE, 2).scenario({
    '1-1': succeed('src/one.txt', 'one\n'),
    '2-1': [{ write: 'src/two.txt', content: 'half\n' }, { say: 'working' }, { hang: true }],
    '2-*': succeed('src/two.txt', 'two\n'),
  });
  await crashWhileAgentRuns(world, 'working');
  return world;
}

/** A finished two-story run turned back into the state an unanswered completion question (or a cleanup interrupted at its marker) leaves. */
async function awaitingChoice(cleanupMarker: boolean): Promise<FaultWorld> {
  world = new FaultWorld(CHANGE, 2).scenario({
    '1-1': succeed('src/one.txt', 'one\n'),
    '2-1': succeed('src/two.txt', 'two\n'),
  });
  const w = world;
  const run = await w.loop('run');
  expect(run.exitCode, run.stderr).toBe(0);
  w.writeState({
    ...w.state(),
    status: 'active',
    choice: null,
    step: cleanupMarker ? { op: 'cleanup' } : null,
    pid: deadPid(),
  });
  return w;
}

describe("the run's branch also checked out in another worktree", () => {
  const MAKERS = {
    'interrupted mid-loop': interruptedMidLoop,
    'awaiting the completion choice': () => awaitingChoice(false),
  };

  it.each(Object.keys(MAKERS) as (keyof typeof MAKERS)[])(
    '%s: resume and finish refuse naming the worktree; status names one command, following it ends the run',
    async (name) => {
      const w = await MAKERS[name]();
      const peek = path.join(w.scratch, 'peek');
      w.git('worktree', 'add', '-q', '--force', peek, w.branch);
      const peekFiles = [...snapshotTree(peek)];
      const mine = treeFingerprint(w.dir);

      for (const args of [
        ['resume', CHANGE, '--agent', 'command', '--agent-command', 'true'],
        ['finish', CHANGE, '--cleanup'],
        ['finish', CHANGE, '--keep'],
      ]) {
        const refused = await w.cli(args);
        expect(refused.exitCode, refused.stderr).toBe(2);
        expect(refused.stderr).toContain(`git -C ${peek} switch --detach`);
      }
      expect(treeFingerprint(w.dir)).toEqual(mine);

      const status = await runStatus(w);
      expect(status.next).toContain(`checked out in the worktree ${peek}`);
      expect(adviceCommand(String(status.next))).toEqual(['git', '-C', peek, 'switch', '--detach']);
      const { followed } = await followAdvice(w);
      expect(followed.length).toBeGreaterThanOrEqual(2);
      expect(w.state()).toMatchObject({ status: 'finished', step: null });
      expect(w.status()).toEqual(
        w.state().choice === 'keep' ? [] : expect.arrayContaining(['?? src/one.txt']),
      );
      expect(w.userFilesChanged()).toEqual([]);
      // The other worktree only lost its branch (as advised): every file is as it was.
      expect([...snapshotTree(peek)]).toEqual(peekFiles);
      expect(gitIn(peek, 'status', '--porcelain')).toBe('');
    },
  );
});

describe('the original branch checked out in another worktree at cleanup time', () => {
  it.each([
    { name: 'a cleanup interrupted at its marker', marker: true },
    { name: 'the completion choice unanswered', marker: false },
  ])(
    '$name: finish --cleanup refuses before starting; status names one command, following it ends the run',
    async ({ marker }) => {
      const w = await awaitingChoice(marker);
      const mainBefore = w.sha('main');
      const other = path.join(w.scratch, 'other');
      w.git('worktree', 'add', '-q', other, 'main');
      const otherBefore = treeFingerprint(other);
      const mine = treeFingerprint(w.dir);

      const refused = await w.cli(['finish', CHANGE, '--cleanup']);
      expect(refused.exitCode, refused.stderr).toBe(2);
      expect(refused.stderr).toContain(`git -C ${other} switch --detach`);
      expect(treeFingerprint(w.dir)).toEqual(mine);

      const status = await runStatus(w);
      expect(status.next).toContain(`worktree ${other} has it checked out`);
      const { followed } = await followAdvice(w);
      expect(followed[0]).toContain(`git -C ${other} switch --detach`);
      expect(w.currentBranch()).toBe('main');
      expect(w.sha('main')).toBe(mainBefore);
      expect(w.branchExists(w.branch)).toBe(false);
      expect(w.read('src/two.txt')).toBe('two\n');
      expect(w.userFilesChanged()).toEqual([]);
      expect(w.state()).toMatchObject({ status: 'finished', choice: 'cleanup', step: null });
      const otherAfter = treeFingerprint(other);
      expect(otherAfter.files).toEqual(otherBefore.files);
      expect(otherAfter.index).toEqual(otherBefore.index);
      expect(otherAfter.headSha).toEqual(otherBefore.headSha);
    },
  );

  it("the loop's own cleanup choice is refused before it starts, and status gets out of it", async () => {
    world = new FaultWorld(CHANGE, 1);
    const w = world;
    const other = path.join(w.scratch, 'other');
    // The agent itself gives main to another worktree while the run is on ralph/<change>.
    w.scenario({
      '1-1': [
        { git: ['worktree', 'add', '-q', other, 'main'] },
        ...succeed('src/one.txt', 'one\n'),
      ],
    });
    const mainBefore = w.sha('main');
    const ended = await w.loop('run', [], { onComplete: 'cleanup' });
    expect(ended.exitCode).not.toBe(0);
    expect(ended.stderr).toContain(`git -C ${other} switch --detach`);
    expect(w.currentBranch()).toBe(w.branch);
    const otherBefore = [...snapshotTree(other)];
    await followAdvice(w);
    expect(w.currentBranch()).toBe('main');
    expect(w.sha('main')).toBe(mainBefore);
    expect(w.read('src/one.txt')).toBe('one\n');
    expect(w.userFilesChanged()).toEqual([]);
    expect([...snapshotTree(other)]).toEqual(otherBefore);
  });
});

describe('an interrupted cleanup, then files written into the tree before it is resumed', () => {
  type Reached = 'checkout' | 'squash' | 'reset';
  const CASES: { reached: Reached; file: string; content: string }[] = [
    // The squash would bring this very file: `git merge --squash` refuses to overwrite it.
    { reached: 'checkout', file: 'src/one.txt', content: 'written after the crash\n' },
    // A file of its own, which the squash does not know.
    { reached: 'checkout', file: 'notes/late.txt', content: 'late note\n' },
    // After the squash: a file the run brought, changed again.
    { reached: 'squash', file: 'src/two.txt', content: 'edited after the crash\n' },
    { reached: 'reset', file: 'src/one.txt', content: 'edited after the crash\n' },
  ];

  it.each(CASES)(
    'after "$reached", $file written: status names finish --cleanup, which completes it and sets the late file aside under a ref',
    async ({ reached, file, content }) => {
      const w = await awaitingChoice(true);
      const mainBefore = w.sha('main');
      const tip = w.sha(w.branch);
      w.git('checkout', '-q', 'main', '--');
      if (reached !== 'checkout') w.git('merge', '-q', '--squash', '--ff', '--no-stat', w.branch);
      if (reached === 'reset') w.git('reset', '-q');
      w.write(file, content);

      const status = await runStatus(w);
      expect(adviceCommand(String(status.next))).toEqual([
        'ralphtool',
        'finish',
        CHANGE,
        '--cleanup',
      ]);
      const { followed, last } = await followAdvice(w);
      expect(followed).toHaveLength(1);
      const ref = /set aside under (\S+)/.exec(last?.stderr ?? '')?.[1];
      expect(ref, last?.stderr).toMatch(new RegExp(`^refs/ralphtool/${CHANGE}/attempts/late-`));
      expect(w.git('show', `${ref!}:${file}`)).toBe(content);
      expect(w.git('rev-parse', `${ref!}^2`).trim()).toBe(tip);
      // The cleanup's own result, exactly as without the late write.
      expect(w.currentBranch()).toBe('main');
      expect(w.sha('main')).toBe(mainBefore);
      expect(w.branchExists(w.branch)).toBe(false);
      expect(w.read('src/one.txt')).toBe('one\n');
      expect(w.read('src/two.txt')).toBe('two\n');
      expect(w.exists('notes/late.txt')).toBe(false);
      expect(w.userFilesChanged()).toEqual([]);
      expect(w.state()).toMatchObject({ status: 'finished', choice: 'cleanup', step: null });
    },
  );
});
