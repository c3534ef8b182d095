import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HomeCollision } from '../../src/checkpoint/home-cleanup.js';
import type { StepObserver } from '../../src/checkpoint/journal.js';
import { openRun } from '../../src/checkpoint/open.js';
import { RESOLVE_STEPS, UNRESOLVE_STEPS } from '../../src/checkpoint/plans.js';
import { NO_FIGURES } from '../../src/checkpoint/records.js';
import type { ResolveRequest } from '../../src/checkpoint/resolve-home.js';
import { readRunState } from '../../src/checkpoint/state.js';
import { appendResolveStory } from '../../src/core/resolve-story.js';
import { runLocation, snapshotFiles } from '../git/helpers.js';
import type { TempRepo } from '../git/helpers.js';
import { Crash, CRASH_MOMENTS, crashAt } from './sequence-outcome.js';
import { startWorktreeRun, WORKTREE_TASKS } from './worktree-run.js';

/**
 * The crash rows of `--resolve-conflicts` (docs/fault-matrix.md): the resolve sequence (the
 * branch moved onto the user's work tree, the conflicts in its files, tasks.md with one more
 * story) and its undo (the branch back), each stopped right after every step ran and right after
 * the journal recorded it, then finished by a new run object opened from disk as `resume` opens
 * it. The resolve is finished forward once its commit is recorded, else forgotten (and done
 * again from scratch); either way the end is the one without a crash. The user's work tree (an
 * uncommitted edit of the same line, an untracked file) is never touched.
 */

const repos: TempRepo[] = [];
afterAll(() => {
  for (const made of repos.splice(0)) made.remove();
});

const TASKS = WORKTREE_TASKS;

const request = (worktree: string): ResolveRequest => ({
  storyId: '2',
  tasksPath: TASKS,
  tasksText: (files) =>
    Promise.resolve(
      appendResolveStory(readFileSync(join(worktree, TASKS), 'utf8'), '2', files, 'main'),
    ),
});

/** A run of `journal` in its own worktree, its story accepted, colliding with the user's edit. */
async function collidingRun(observeSteps: StepObserver) {
  const { r, run, worktree } = await startWorktreeRun(observeSteps, repos);
  writeFileSync(join(worktree, 'app.txt'), 'app by the run\n');
  const story = join(worktree, 'src/story.txt');
  mkdirSync(dirname(story), { recursive: true });
  writeFileSync(story, 'the story\n');
  writeFileSync(join(worktree, TASKS), '## 1. One\n\n- [x] 1.1 Do it\n');
  await run.acceptStory('1', NO_FIGURES);
  // The user edits the same line meanwhile, and keeps a file of their own.
  r.write('app.txt', 'app by me\n');
  r.write('notes.txt', 'mine\n');
  return { r, run, worktree, from: run.checkpointSha };
}

/** A file's text from `snapshotFiles` (`- <base64>` for a regular file). */
function text(files: Record<string, string>, path: string): string {
  return Buffer.from((files[path] ?? '').replace(/^- /, ''), 'base64').toString('utf8');
}

/** Files with the commit names in conflict marker lines taken out. */
function unlabelled(files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(
    Object.keys(files).map((path) => [
      path,
      text(files, path).replace(/^(<{7}|>{7}) [0-9a-f]+$/gm, '$1'),
    ]),
  );
}

interface ResolveEnd {
  user: Record<string, string>;
  userHead: string;
  branchParents: number;
  worktreeClean: boolean;
  worktreeFiles: Record<string, string>;
  checkpointIsBranch: boolean;
  resolve: unknown;
  step: unknown;
  journalLeft: boolean;
}

async function resolveEnd(r: TempRepo, worktree: string): Promise<ResolveEnd> {
  const runDir = join(r.dir, '.git', 'ralphtool', 'journal');
  const state = await readRunState(join(runDir, 'state.json'));
  const tip = r.git('rev-parse', 'ralph/journal');
  const resolve = state?.resolve ?? null;
  return {
    user: snapshotFiles(r.dir),
    // Every world is a repository of its own: commits are compared by their trees, and the
    // conflict markers without the commit names git labels them with.
    userHead: r.git('rev-parse', 'HEAD^{tree}'),
    branchParents: r.git('rev-list', '--parents', '-n', '1', 'ralph/journal').split(' ').length - 1,
    worktreeClean:
      r.git('-C', worktree, 'status', '--porcelain', '--untracked-files=all').trim() === '',
    worktreeFiles: unlabelled(snapshotFiles(worktree)),
    checkpointIsBranch: state?.checkpointSha === tip,
    // The home commit is made at a moment of its own: compared by its tree.
    resolve:
      resolve === null
        ? null
        : {
            storyId: resolve.storyId,
            files: resolve.files,
            from: r.git('rev-parse', `${resolve.from}^{tree}`),
            home: r.git('rev-parse', `${resolve.home}^{tree}`),
          },
    step: state?.step ?? null,
    journalLeft: existsSync(join(runDir, 'journal.ndjson')),
  };
}

describe('--resolve-conflicts, crashed after any step, ends as without a crash', () => {
  it('the resolve: finished forward once its commit is recorded, else done again', async () => {
    const steps: string[] = [];
    let armed = false;
    const reference = await collidingRun((sequence, step, when) => {
      if (armed && sequence === 'resolve' && when === 'recorded') steps.push(step);
    });
    const user = snapshotFiles(reference.r.dir);
    await expect(reference.run.cleanup({ outcome: 'complete' })).rejects.toBeInstanceOf(
      HomeCollision,
    );
    armed = true;
    const record = await reference.run.resolveOntoHome(request(reference.worktree));
    expect(record).toMatchObject({ storyId: '2', files: ['app.txt'], from: reference.from });
    expect(steps).toEqual([...RESOLVE_STEPS]);
    const end = await resolveEnd(reference.r, reference.worktree);
    // The user's tree untouched; the worktree on the merge, the conflict left in the file.
    expect(end.user).toEqual(user);
    expect(end).toMatchObject({ branchParents: 2, checkpointIsBranch: true, step: null });
    expect(end.journalLeft).toBe(false);
    expect(end.worktreeFiles['app.txt']).toBe(
      '<<<<<<<\napp by the run\n=======\napp by me\n>>>>>>>\n',
    );
    expect(end.worktreeClean).toBe(true);
    expect(end.worktreeFiles[TASKS]).toContain('## 2. Bring this change onto your work tree');
    expect(text(end.user, 'notes.txt')).toBe('mine\n');

    for (const step of steps) {
      for (const when of CRASH_MOMENTS) {
        let crashing = false;
        const world = await collidingRun(crashAt(step, when, () => crashing));
        await expect(world.run.cleanup({ outcome: 'complete' })).rejects.toBeInstanceOf(
          HomeCollision,
        );
        crashing = true;
        await expect(world.run.resolveOntoHome(request(world.worktree))).rejects.toBeInstanceOf(
          Crash,
        );
        crashing = false;
        const reopened = await openRun(runLocation(world.worktree, 'journal'));
        expect(reopened.state.step?.op).toBe('resolve');
        await reopened.ensureAtCheckpoint();
        // Forgotten before its commit was recorded: the next end of the loop resolves again.
        if ((reopened.state.resolve ?? null) === null) {
          expect(reopened.checkpointSha).toBe(world.from);
          await reopened.resolveOntoHome(request(world.worktree));
        }
        const crashed = await resolveEnd(world.r, world.worktree);
        expect(crashed, `resolve: crash after ${step} ${when}`).toEqual(end);
      }
    }
  });

  it('the undo: the branch back at the checkpoint before, from any step', async () => {
    const resolved = async (observe: StepObserver) => {
      const world = await collidingRun(observe);
      await world.run.resolveOntoHome(request(world.worktree));
      return world;
    };
    const steps: string[] = [];
    let armed = false;
    const reference = await resolved((sequence, step, when) => {
      if (armed && sequence === 'unresolve' && when === 'recorded') steps.push(step);
    });
    armed = true;
    await reference.run.dropResolve();
    expect(steps).toEqual([...UNRESOLVE_STEPS]);
    const end = await resolveEnd(reference.r, reference.worktree);
    expect(end).toMatchObject({ resolve: null, step: null, checkpointIsBranch: true });
    expect(reference.r.git('rev-parse', 'ralph/journal')).toBe(reference.from);
    expect(end.worktreeFiles['app.txt']).toBe('app by the run\n');
    expect(text(end.user, 'app.txt')).toBe('app by me\n');

    for (const step of steps) {
      for (const when of CRASH_MOMENTS) {
        let crashing = false;
        const world = await resolved(crashAt(step, when, () => crashing));
        crashing = true;
        await expect(world.run.dropResolve()).rejects.toBeInstanceOf(Crash);
        crashing = false;
        const reopened = await openRun(runLocation(world.worktree, 'journal'));
        expect(reopened.state.step?.op).toBe('unresolve');
        await reopened.ensureAtCheckpoint();
        expect(
          await resolveEnd(world.r, world.worktree),
          `undo: crash after ${step} ${when}`,
        ).toEqual(end);
      }
    }
  });
});
