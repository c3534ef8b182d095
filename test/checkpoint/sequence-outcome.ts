import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NO_FIGURES } from '../../src/checkpoint/records.js';
import { readRunState } from '../../src/checkpoint/state.js';
import type { CheckpointRun } from '../../src/checkpoint/checkpoint.js';
import type { StepObserver } from '../../src/checkpoint/journal.js';
import { snapshotFiles } from '../git/helpers.js';
import type { TempRepo } from '../git/helpers.js';

/** The sequences of a story's end, on story 2's first attempt, and the run's cleanup after it. */
export type Sequence = 'accept' | 'revert' | 'cleanup';

/** What the end of a sequence left, comparable across repositories (trees, not commit shas). */
export interface Outcome {
  headTree: string;
  branch: string;
  files: Record<string, string>;
  index: string;
  savedTree: string | null;
  checkpointTree: string;
  step: unknown;
  status: string | null;
  runBranch: boolean;
  /** The tree the checkpoint pin ref holds (null: no pin, as after the run's end). */
  pinTree: string | null;
  journalLeft: boolean;
  /** What the sequence said the user must be told. */
  notice: string | null;
}

/** What a sequence left, read from the repository and the run folder. */
export async function outcome(
  r: TempRepo,
  runDir: string,
  notice: string | null,
): Promise<Outcome> {
  const state = await readRunState(`${runDir}/state.json`);
  const saved = r.gitStatus('rev-parse', '-q', '--verify', 'refs/ralphtool/journal/attempts/2-1');
  return {
    headTree: r.git('rev-parse', 'HEAD^{tree}'),
    branch: r.git('symbolic-ref', '--short', 'HEAD'),
    files: snapshotFiles(r.dir),
    index: r.git('ls-files', '-s'),
    savedTree:
      saved === 0 ? r.git('rev-parse', 'refs/ralphtool/journal/attempts/2-1^{tree}') : null,
    checkpointTree: r.git('rev-parse', `${state?.checkpointSha ?? 'HEAD'}^{tree}`),
    step: state?.step ?? null,
    status: state?.status ?? null,
    runBranch: r.gitStatus('rev-parse', '-q', '--verify', 'refs/heads/ralph/journal') === 0,
    pinTree:
      r.gitStatus('rev-parse', '-q', '--verify', 'refs/ralphtool/journal/checkpoint') === 0
        ? r.git('rev-parse', 'refs/ralphtool/journal/checkpoint^{tree}')
        : null,
    notice,
    journalLeft: existsSync(join(runDir, 'journal.ndjson')),
  };
}

/** Accepts or reverts story 2's first attempt, or cleans the run up; returns the notice. */
export async function runSequence(sequence: Sequence, run: CheckpointRun): Promise<string | null> {
  if (sequence === 'accept') await run.acceptStory('2', NO_FIGURES);
  else if (sequence === 'revert') {
    await run.revertAttempt('2', 1, { ended: 'stopped', figures: NO_FIGURES });
  } else return run.cleanup({ outcome: 'complete' });
  return null;
}

/** What the crash rows throw from a step observer: a crash of the process at that moment. */
export class Crash extends Error {}

/** The moments of a step a crash row stops at: right after it ran, right after it was recorded. */
export const CRASH_MOMENTS = ['ran', 'recorded'] as const;

/** A step observer that crashes at `step`'s `moment` while `armed()` says so. */
export function crashAt(
  step: string,
  moment: (typeof CRASH_MOMENTS)[number],
  armed: () => boolean = () => true,
): StepObserver {
  return (_sequence, at, when) => {
    if (armed() && at === step && when === moment) throw new Crash(`${at} ${when}`);
  };
}
