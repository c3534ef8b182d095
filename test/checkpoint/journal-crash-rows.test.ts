import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openRun } from '../../src/checkpoint/open.js';
import { startRun } from '../../src/checkpoint/start.js';
import { NO_FIGURES } from '../../src/checkpoint/records.js';
import type { CheckpointRun } from '../../src/checkpoint/checkpoint.js';
import type { StepObserver } from '../../src/checkpoint/journal.js';
import { planAccept, planCleanup, planRevert } from '../../src/checkpoint/plans.js';
import { makeRepo, runLocation } from '../git/helpers.js';
import {
  Crash,
  CRASH_MOMENTS,
  crashAt,
  outcome,
  runSequence,
  type Outcome,
  type Sequence,
} from './sequence-outcome.js';
import type { TempRepo } from '../git/helpers.js';

/**
 * The crash rows of the accept and the revert, generated: for every step of every plan (the
 * fast path and the full one), the sequence is stopped right after the step ran (before the
 * journal says so) and right after the journal says so, as a crash of the process would; a new
 * run object opened from disk (a new process) then finishes it. The end must be the same as
 * without the crash: the same trees, files, index and saved attempt.
 */

const repos: TempRepo[] = [];
afterAll(() => {
  for (const made of repos.splice(0)) made.remove();
});

type Path = 'fast' | 'full';
interface CrashPoint {
  step: string;
  when: 'ran' | 'recorded';
}

/**
 * A run with story 1 accepted and story 2's attempt in the work tree: files written, changed and
 * deleted, an untracked folder, the user's ignored `.env`; on the full path the attempt also
 * used git (staged, committed, and stopped tracking `config.json` the git way, with local values).
 */
async function world(
  sequence: Sequence,
  path: Path,
  observe: StepObserver | undefined,
): Promise<{ r: TempRepo; run: CheckpointRun }> {
  // The sequence under test is the one observed, not the start's or story 1's.
  let armed = false;
  const observeSteps: StepObserver = (sequence, step, when) => {
    if (armed) observe?.(sequence, step, when);
  };
  const r = makeRepo();
  repos.push(r);
  r.write('.gitignore', '.env\n');
  r.write('app.txt', 'app\n');
  r.write('lib/util.txt', 'util\n');
  r.write('config.json', '{"shared":true}\n');
  r.git('add', '-A');
  r.git('commit', '-q', '-m', 'base');
  r.write('.env', 'SECRET=1\n');
  r.write('notes.txt', 'my notes\n');
  const run = await startRun({
    ...runLocation(r.dir, 'journal'),
    observeSteps,
  });
  r.write('one.txt', 'story one\n');
  await run.acceptStory('1', NO_FIGURES);
  await run.ensureAtCheckpoint();
  await run.startAttempt('2', 1);
  r.write('app.txt', 'app, changed by story 2\n');
  r.write('new/deep/file.txt', 'new\n');
  rmSync(join(r.dir, 'lib/util.txt'));
  if (path === 'full') {
    r.write('staged.txt', 'staged\n');
    r.git('add', 'staged.txt');
    r.git('commit', '-q', '-m', 'the agent committed');
    r.write('more.txt', 'more\n');
    r.git('add', 'more.txt');
    // Stopped tracking the git way, kept on disk with local values: it stays out of the commit.
    r.write('.gitignore', '.env\nconfig.json\n');
    r.git('rm', '-q', '--cached', 'config.json');
    r.write('config.json', '{"password":"local"}\n');
  }
  // The cleanup comes after story 2 is accepted (on the full path main still tracks
  // config.json: the cleanup shelters the local one across its checkout).
  if (sequence === 'cleanup') await run.acceptStory('2', NO_FIGURES);
  armed = true;
  return { r, run };
}

/** The steps a sequence runs on a path, as its observer sees them without a crash. */
async function reference(
  sequence: Sequence,
  path: Path,
): Promise<{ steps: string[]; end: Outcome }> {
  const steps: string[] = [];
  const { r, run } = await world(sequence, path, (_sequence, step, when) => {
    if (when === 'recorded') steps.push(step);
  });
  const notice = await runSequence(sequence, run);
  return { steps, end: await outcome(r, run.paths.dir, notice) };
}

async function crashedThenFinished(
  sequence: Sequence,
  path: Path,
  at: CrashPoint,
): Promise<Outcome> {
  const { r, run } = await world(sequence, path, crashAt(at.step, at.when));
  await expect(runSequence(sequence, run)).rejects.toBeInstanceOf(Crash);
  // A new process: the run as the disk holds it, the interrupted sequence finished.
  const reopened = await openRun(runLocation(r.dir, 'journal'));
  expect(reopened.state.step?.op).toBe(sequence);
  // `finish --cleanup` finishes a cleanup (and says what the user must know); the loop's next
  // step finishes the others.
  if (sequence === 'cleanup') return outcome(r, reopened.paths.dir, await reopened.cleanup());
  await reopened.finishInterruptedStep();
  return outcome(r, reopened.paths.dir, null);
}

const SEQUENCES: readonly Sequence[] = ['accept', 'revert', 'cleanup'];
const PATHS: readonly Path[] = ['fast', 'full'];

/** The steps each sequence runs when it is not resumed, as the planner lists them. */
function planned(sequence: Sequence, path: Path): string[] {
  const inputs = { resumed: false, untouched: path === 'fast' };
  if (sequence === 'accept') return planAccept(inputs);
  if (sequence === 'revert') return planRevert(inputs);
  return planCleanup({ unbornOriginal: false });
}

// One test per crash point (not one per plan looping over them): each stays short on a
// loaded machine, and a failure names its step.
describe.each(SEQUENCES)(
  '%s, crashed after any step, is finished the same by the next process',
  (sequence) => {
    describe.each(PATHS)('the %s path', (path) => {
      const steps = planned(sequence, path);
      let done: ReturnType<typeof reference> | undefined;
      const referenceRun = (): ReturnType<typeof reference> => (done ??= reference(sequence, path));

      it('records every step of its plan as it runs it', async () => {
        expect((await referenceRun()).steps).toEqual(steps);
        // The path taken is the one named: the fast one plans no move of the branch.
        if (sequence !== 'cleanup') {
          expect(steps.includes('branch-to-checkpoint')).toBe(path === 'full');
        }
        expect(steps.length).toBeGreaterThanOrEqual(5);
      });

      it.each(steps.flatMap((step) => CRASH_MOMENTS.map((when) => ({ step, when }))))(
        'crashed after $step $when',
        async (at) => {
          const { end } = await referenceRun();
          expect(await crashedThenFinished(sequence, path, at)).toEqual(end);
        },
      );
    });
  },
);

describe('the start, crashed after any step, is finished the same by the next process', () => {
  /** A repository with the user's work uncommitted, staged and untracked. */
  function userRepo(): TempRepo {
    const r = makeRepo();
    repos.push(r);
    r.write('.gitignore', '.env\n');
    r.write('app.txt', 'app\n');
    r.git('add', '-A');
    r.git('commit', '-q', '-m', 'base');
    r.write('.env', 'SECRET=1\n');
    r.write('app.txt', 'app, uncommitted\n');
    r.write('staged.txt', 'staged\n');
    r.git('add', 'staged.txt');
    r.write('notes/untracked.txt', 'mine\n');
    return r;
  }

  function start(r: TempRepo, observeSteps: StepObserver): Promise<CheckpointRun> {
    return startRun({ ...runLocation(r.dir, 'journal'), observeSteps });
  }

  it('every step, crashed after it ran and after it was recorded', async () => {
    const steps: string[] = [];
    const reference = userRepo();
    const run = await start(reference, (_sequence, step, when) => {
      if (when === 'recorded') steps.push(step);
    });
    const end = await outcome(reference, run.paths.dir, null);
    expect(steps).toEqual(['create-branch', 'initial-commit', 'pin']);
    for (const step of steps) {
      for (const when of CRASH_MOMENTS) {
        const r = userRepo();
        const crashing = start(r, crashAt(step, when));
        await expect(crashing).rejects.toBeInstanceOf(Crash);
        // A new process: `resume` opens the run and finishes the start first.
        const reopened = await openRun(runLocation(r.dir, 'journal'));
        expect(reopened.state.step?.op).toBe('start');
        await reopened.finishInterruptedStep();
        const crashed = await outcome(r, reopened.paths.dir, null);
        expect(crashed, `start: crash after ${step} ${when}`).toEqual(end);
      }
    }
  });
});
