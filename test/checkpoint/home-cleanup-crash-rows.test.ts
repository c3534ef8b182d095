import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRun } from '../../src/checkpoint/open.js';
import { NO_FIGURES } from '../../src/checkpoint/records.js';
import { readRunState } from '../../src/checkpoint/state.js';
import type { StepObserver } from '../../src/checkpoint/journal.js';
import { runLocation, snapshotFiles } from '../git/helpers.js';
import type { TempRepo } from '../git/helpers.js';
import { Crash, CRASH_MOMENTS, crashAt } from './sequence-outcome.js';
import { startWorktreeRun } from './worktree-run.js';

/**
 * The crash rows of the home cleanup (a run in a worktree of its own bringing its work into the
 * user's work tree), generated: every step of `HOME_CLEANUP_STEPS`, the sequence stopped right
 * after the step ran and right after the journal recorded it, then finished by a new run object
 * opened from disk where `finish --cleanup` opens it (the worktree, or once it is given back the
 * user's work tree). The end must
 * be the one without a crash: the user's files (their own edit beside the run's work), HEAD,
 * index, the worktree and the branch gone, the run finished.
 */

const repos: TempRepo[] = [];
afterAll(() => {
  for (const made of repos.splice(0)) made.remove();
});

interface HomeEnd {
  files: Record<string, string>;
  head: string;
  index: string;
  worktree: boolean;
  worktreesFolder: boolean;
  runBranch: boolean;
  status: string | null;
  step: unknown;
  journalLeft: boolean;
  notice: string | null;
}

/** A user's repository with a run of `journal` in its own worktree, its one story accepted. */
async function homeRun(observeSteps: StepObserver) {
  const { r, run, worktree } = await startWorktreeRun(observeSteps, repos);
  const story = join(worktree, 'src/story.txt');
  mkdirSync(dirname(story), { recursive: true });
  writeFileSync(story, 'the story\n');
  await run.acceptStory('1', NO_FIGURES);
  // The user works in their own tree meanwhile.
  r.write('notes.txt', 'mine\n');
  return { r, run, worktree };
}

async function homeEnd(r: TempRepo, worktree: string, notice: string | null): Promise<HomeEnd> {
  const runDir = join(r.dir, '.git', 'ralphtool', 'journal');
  const state = await readRunState(join(runDir, 'state.json'));
  return {
    files: snapshotFiles(r.dir),
    head: `${r.git('symbolic-ref', '--short', 'HEAD')} ${r.git('rev-parse', 'HEAD^{tree}')}`,
    index: r.git('ls-files', '-s'),
    worktree: existsSync(worktree),
    worktreesFolder: existsSync(dirname(worktree)),
    runBranch: r.gitStatus('rev-parse', '-q', '--verify', 'refs/heads/ralph/journal') === 0,
    status: state?.status ?? null,
    step: state?.step ?? null,
    journalLeft: existsSync(join(runDir, 'journal.ndjson')),
    notice,
  };
}

describe('the home cleanup, crashed after any step, is finished the same from the user’s tree', () => {
  it('every step, crashed after it ran and after it was recorded', async () => {
    const steps: string[] = [];
    let armed = false;
    const reference = await homeRun((_sequence, step, when) => {
      if (armed && when === 'recorded') steps.push(step);
    });
    armed = true;
    const notice = await reference.run.cleanup({ outcome: 'complete' });
    const end = await homeEnd(reference.r, reference.worktree, notice);
    expect(steps).toEqual([
      'apply-home',
      'free-branch',
      'remove-worktree',
      'delete-branch',
      'forget-user-bytes',
    ]);
    // The run's work and the user's own edit side by side, uncommitted; nothing left behind.
    expect(end.files['src/story.txt']).toBeDefined();
    expect(end.files['notes.txt']).toBeDefined();
    expect(end).toMatchObject({ worktree: false, worktreesFolder: false, runBranch: false });
    for (const step of steps) {
      for (const when of CRASH_MOMENTS) {
        let crashing = false;
        const world = await homeRun(crashAt(step, when, () => crashing));
        crashing = true;
        await expect(world.run.cleanup({ outcome: 'complete' })).rejects.toBeInstanceOf(Crash);
        // A new process: `finish --cleanup` opens the run in its worktree while that exists,
        // else (given back before the crash) in the user's work tree.
        const where = existsSync(world.worktree) ? world.worktree : world.r.dir;
        const reopened = await openRun(runLocation(where, 'journal'));
        expect(reopened.state.step?.op).toBe('cleanup');
        const finished = await reopened.cleanup({ outcome: 'complete' });
        const crashed = await homeEnd(world.r, world.worktree, finished);
        expect(crashed, `home cleanup: crash after ${step} ${when}`).toEqual(end);
      }
    }
  });
});
