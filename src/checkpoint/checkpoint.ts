import { existsSync } from 'node:fs';
import { RuntimeError, UsageError } from '../core/errors.js';
import type { CompletionChoice, RunOutcome } from '../core/events.js';
import { attemptName, attemptRef } from './paths.js';
import {
  keptWorkAdvice,
  NO_FIGURES,
  recordAcceptance,
  recordChoice,
  recordRevertedAttempt,
} from './records.js';
import type { AttemptEnding } from './records.js';
import type { AttemptFigures, RunState, RunStep } from './state.js';
import { AcceptGitSteps } from './accept.js';
import { clearStaleIndexLock } from '../git/index-lock.js';
import { CleanupGitSteps, cleanupNotice } from './finish.js';
import type { HeadPosition } from '../git/repo.js';
import { RevertGitSteps } from './revert.js';
import { Journal, runSteps } from './journal.js';
import { planAccept, planCleanup, planRevert, START_STEPS } from './plans.js';
import { keepCommitsPastCheckpoint, saveWorkTree } from './save-attempt.js';
import type { CallOptions, EnsureResult, RevertResult } from './types.js';
import { StartGitSteps } from './start-sequence.js';
import { forgetUserBytes, restoreUserBytes, stagedKeptNotice } from './user-files.js';
import { undoStart } from './start-undo.js';
import { giveWorktreeBack, homeContext } from './home-keep.js';
import { takeUserTasksEdits } from './user-tasks.js';
import { pinCheckpoint, unpinCheckpoint } from './checkpoint-pin.js';
import { assertOriginalFree } from './worktrees.js';
import { bringWorkHome } from './home-cleanup.js';
import { ResolvingRun } from './resolving-run.js';
import { changedIgnoredTasks, rememberIgnoredTasks, restoreIgnoredTasks } from './ignored-tasks.js';
import { headAndCleanliness, operationInProgress } from '../git/status.js';

/**
 * One recorded run and the git protocol on it (docs/git-protocol.md): the loop keeps
 * this object and calls `ensureAtCheckpoint`, `startAttempt`, `acceptStory` or
 * `revertAttempt`, then `cleanup` or `keep`. What each step records in the state is defined
 * here (records.ts) and nowhere else. Every multi-step sequence records itself in `state.step`
 * first, so a crash half-way is finished by `finishInterruptedStep` (which every method calls
 * when it finds one).
 */
export class CheckpointRun extends ResolvingRun {
  /**
   * Commits the work tree as the story's checkpoint and records the story as completed, with
   * what its attempt spent; returns the new checkpoint sha.
   */
  async acceptStory(
    storyId: string,
    figures: AttemptFigures,
    opts: CallOptions & { body?: string } = {},
  ): Promise<string> {
    const body = opts.body === undefined || opts.body === '' ? {} : { body: opts.body };
    const step: RunStep = { op: 'accept', storyId, figures, ...body };
    const protect = await this.protect(
      opts,
      attemptName(storyId, this.current.currentAttempt ?? 0),
    );
    const resuming = await this.enterStep(step, opts);
    await clearStaleIndexLock(this.repo);
    const untouched = !resuming && (await this.watch.untouchedSinceAttempt(this.checkpointSha));
    const noticesBefore = this.notices.length;
    const g = this.runGit(opts);
    const journal = await Journal.open(this.paths.journal, sequenceName(step), resuming);
    const steps = new AcceptGitSteps(g, this.checkpointSha, { storyId, ...body }, protect, journal);
    const plan = planAccept({ resumed: resuming, untouched });
    await runSteps(
      journal,
      plan,
      async (name) => {
        if (name === 'remember-ignored-tasks') await rememberIgnoredTasks(g, steps.commit(), true);
        else if (name === 'pin') await pinCheckpoint(g, steps.commit());
        else return steps.run(name);
        return undefined;
      },
      this.options.observeSteps,
    );
    const sha = steps.commit();
    await this.update((draft) => {
      draft.checkpointSha = sha;
      draft.step = null;
      recordAcceptance(draft, storyId, figures);
    });
    journal.close();
    // Files left out of the commit stay in the tree: then the next check asks git.
    if (this.notices.length === noticesBefore) await this.watch.settledAt(sha);
    else this.watch.forget();
    return sha;
  }

  /** Saves and reverts a failed, stopped or fatal attempt, and records how it ended. */
  async revertAttempt(
    storyId: string,
    attempt: number,
    ending: AttemptEnding,
  ): Promise<RevertResult> {
    return this.saveAndRevert(storyId, attempt, {}, (draft) =>
      recordRevertedAttempt(draft, storyId, attempt, ending),
    );
  }

  /**
   * Saves the work tree under the attempt's ref, then puts the tree back to the checkpoint.
   * Records nothing about the attempt: `revertAttempt` does, for the loop's attempts.
   */
  async revert(storyId: string, attempt: number, opts: CallOptions = {}): Promise<RevertResult> {
    return this.saveAndRevert(storyId, attempt, opts, () => undefined);
  }

  /** Saves the attempt's work tree under its attempt ref, changing nothing; returns the ref. */
  async saveAttempt(storyId: string, attempt: number, opts: CallOptions = {}): Promise<string> {
    const ref = attemptRef(this.change, storyId, attempt);
    const label = attemptName(storyId, attempt);
    await saveWorkTree(this.runGit(opts), { checkpoint: this.checkpointSha, ref, label });
    return ref;
  }

  /**
   * Between invocations (no attempt recorded, no step half-way): the user's own edits of the
   * change's tasks.md become part of the run (user-tasks.ts) before any repair could save them
   * away as an attempt's. Returns the paths taken (none: nothing of the user's).
   */
  async takeUserTasksEdits(opts: CallOptions = {}): Promise<string[]> {
    this.refuseIfFinished();
    const { step, currentStory, checkpointSha } = this.current;
    if (step !== null || currentStory !== null || checkpointSha === null) return [];
    const taken = await takeUserTasksEdits(this.runGit(opts), checkpointSha);
    if (taken === null) return [];
    if (taken.sha !== checkpointSha) {
      await pinCheckpoint(this.runGit(opts), taken.sha);
      await this.update((draft) => void (draft.checkpointSha = taken.sha));
    }
    this.watch.forget();
    return taken.paths;
  }

  /**
   * Before each attempt: HEAD on the run's branch at the checkpoint, nothing changed, no
   * operation in progress. Anything else is saved and reverted (as the current attempt, or
   * as `interrupted-<time>` when none is recorded).
   */
  async ensureAtCheckpoint(
    opts: CallOptions & {
      /** Saves what is found as `<as>-0` instead (the verify baseline's leftovers). */
      as?: string;
    } = {},
  ): Promise<EnsureResult> {
    this.refuseIfFinished();
    if (this.current.step?.op === 'cleanup') throw this.cleanupPending();
    await this.protect(opts, `check-${Date.now()}`);
    if (this.current.step) await this.finishInterruptedStep(opts);
    const g = this.runGit(opts);
    if (
      (await this.watch.stillSettled(this.checkpointSha)) &&
      (await operationInProgress(this.repo.gitDir)) === null &&
      (await changedIgnoredTasks(g, this.checkpointSha)).length === 0
    ) {
      return { repaired: false, savedRef: null, fromBranch: null, keptCommits: null };
    }
    const { head, clean } = await headAndCleanliness(g.ctx);
    // An ignored tasks.md is no part of "clean": its changes are checked on their own.
    if (
      (clean || (await this.onlyIgnoredAtStart(opts))) &&
      (await this.isAtCheckpoint(head)) &&
      (await changedIgnoredTasks(g, this.checkpointSha)).length === 0
    ) {
      await rememberIgnoredTasks(g, this.checkpointSha, false);
      await this.watch.atCheckpoint(this.checkpointSha);
      return { repaired: false, savedRef: null, fromBranch: null, keptCommits: null };
    }
    // Commits made on the branch past its checkpoint (the user's fix after a crash, or the
    // agent's): kept with their history under a ref of their own, and named, before the revert.
    const keptCommits = await keepCommitsPastCheckpoint(
      g.ctx,
      this.change,
      this.branch,
      this.checkpointSha,
    );
    const { currentStory, currentAttempt } = this.current;
    const { savedRef } =
      opts.as !== undefined
        ? await this.revert(opts.as, 0, opts)
        : currentStory !== null && currentAttempt !== null
          ? await this.revert(currentStory, currentAttempt, opts)
          : await this.revert(`interrupted-${Date.now()}`, 0, opts);
    const fromBranch = head.kind !== 'detached' && head.name !== this.branch ? head.name : null;
    return { repaired: true, savedRef, fromBranch, keptCommits };
  }

  /**
   * Back to the original branch with all the work as uncommitted changes; ends the run.
   * A half-done attempt is saved and reverted first, as if the loop had ended at the checkpoint.
   * Returns the ref where files written since an interrupted cleanup were set aside, if any.
   */
  async cleanup(opts: CallOptions & { outcome?: RunOutcome } = {}): Promise<string | null> {
    this.refuseIfFinished();
    await this.dropUnfinishedResolve(opts);
    const g = this.runGit(opts);
    if (this.current.step?.op === 'start' && (await undoStart(g, this.current))) {
      await this.finish('cleanup', opts.outcome);
      return null;
    }
    if (this.current.home) return this.cleanupHome(opts);
    await assertOriginalFree(g.ctx, this.repo, this.current);
    const resuming = this.current.step?.op === 'cleanup';
    if (!resuming) {
      await this.ensureAtCheckpoint(opts);
      await this.update((draft) => {
        draft.step = { op: 'cleanup' };
      });
    }
    await clearStaleIndexLock(this.repo);
    const journal = await Journal.open(this.paths.journal, 'cleanup', resuming);
    const steps = await CleanupGitSteps.begin(g, this.current, resuming);
    const plan = planCleanup({ unbornOriginal: await steps.unbornOriginal() });
    await runSteps(
      journal,
      plan,
      (name, again) => steps.run(name, again),
      this.options.observeSteps,
    );
    await this.finish('cleanup', opts.outcome);
    journal.close();
    return cleanupNotice(journal);
  }

  /** The cleanup of a run in a worktree of its own: its work into the user's work tree. */
  private async cleanupHome(opts: CallOptions & { outcome?: RunOutcome }): Promise<string | null> {
    const { notice, journal } = await bringWorkHome(this.runGit(opts), this.current, {
      atCheckpoint: async () => {
        await this.ensureAtCheckpoint(opts);
      },
      recordStep: (op) => this.update((draft) => void (draft.step = op === null ? null : { op })),
      observe: this.options.observeSteps,
    });
    await this.finish('cleanup', opts.outcome);
    journal.close();
    return notice;
  }

  /**
   * Stays on the run's branch, one commit per story. Ends the run when it is complete or
   * `final`; an incomplete run stays resumable (records.ts, `recordChoice`). Returns a notice,
   * if any (where the user's staged versions are).
   */
  async keep(
    opts: CallOptions & { outcome?: RunOutcome; final?: boolean } = {},
  ): Promise<string | null> {
    this.refuseIfFinished();
    await this.dropUnfinishedResolve(opts);
    // No step marker: keeping is one state write once the tree is known to be at the checkpoint.
    await this.ensureAtCheckpoint(opts);
    await forgetUserBytes(this.runGit(opts));
    await this.finish('keep', opts.outcome, opts.final ?? false);
    const staged = await stagedKeptNotice(this.runGit(opts));
    // A run in a worktree of its own: the work is on the branch, the worktree goes (home-keep.ts).
    const gone = await giveWorktreeBack(this.runGit(opts).ctx, this.current);
    return gone === null ? staged : staged === null ? gone : `${staged}; ${gone}`;
  }

  /** Finishes the git sequence a crash interrupted, if any; returns the step it finished. */
  async finishInterruptedStep(opts: CallOptions = {}): Promise<RunStep | null> {
    const step = this.current.step;
    if (!step) return null;
    switch (step.op) {
      case 'start': {
        // The guard is taken here, as the run starts: before any agent can have changed anything.
        await this.protect(opts, 'start');
        const g = this.runGit(opts);
        // Every start step looks at HEAD first, so a start is always run as if resumed.
        const journal = await Journal.open(this.paths.journal, 'start', true);
        const steps = new StartGitSteps(g, this.current, journal);
        await runSteps(
          journal,
          START_STEPS,
          async (name) => {
            if (name !== 'pin') return steps.run(name);
            await pinCheckpoint(g, steps.initialCommit());
            return undefined;
          },
          this.options.observeSteps,
        );
        const sha = steps.initialCommit();
        await this.update((draft) => {
          draft.baseSha = sha;
          draft.checkpointSha = sha;
          draft.step = null;
        });
        journal.close();
        break;
      }
      case 'accept':
        // The record of the acceptance was lost with the crash: the same one is written now.
        await this.acceptStory(requireStory(step), step.figures ?? NO_FIGURES, {
          ...opts,
          ...(step.body === undefined ? {} : { body: step.body }),
        });
        break;
      case 'revert':
        await this.revert(requireStory(step), step.attempt ?? 0, opts);
        break;
      case 'cleanup':
        await this.cleanup(opts);
        break;
      case 'resolve':
        await this.finishResolveStep(opts);
        break;
      case 'unresolve':
        await this.dropResolve(opts);
        break;
      case 'keep':
        // Keeping changes no git state, so there is nothing to finish: forget the marker.
        await this.update((draft) => {
          draft.step = null;
        });
        break;
    }
    return step;
  }

  /** The revert sequence; `record` is written with its end, in the same state write. */
  private async saveAndRevert(
    storyId: string,
    attempt: number,
    opts: CallOptions,
    record: (draft: RunState) => void,
  ): Promise<RevertResult> {
    const step: RunStep = { op: 'revert', storyId, attempt };
    const protect = await this.protect(opts, attemptName(storyId, attempt));
    const resuming = await this.enterStep(step, opts);
    await clearStaleIndexLock(this.repo);
    const toSha = this.checkpointSha;
    const untouched = !resuming && (await this.watch.untouchedSinceAttempt(toSha));
    const noticesBefore = this.notices.length;
    const g = this.runGit(opts);
    const journal = await Journal.open(this.paths.journal, sequenceName(step), resuming);
    const ref = attemptRef(this.change, storyId, attempt);
    const label = attemptName(storyId, attempt);
    const steps = new RevertGitSteps(g, { checkpoint: toSha, ref, label, protect }, journal);
    await runSteps(
      journal,
      planRevert({ resumed: resuming, untouched }),
      async (name, again) => {
        // `reset --hard` wrote the user's files through git's filters: their exact bytes go back.
        if (name === 'user-bytes') await restoreUserBytes(g, this.current.baseSha, toSha);
        else if (name === 'ignored-tasks') await restoreIgnoredTasks(g, toSha, ref);
        else return steps.run(name, again);
        return undefined;
      },
      this.options.observeSteps,
    );
    const { savedRef } = await steps.result();
    await this.update((draft) => {
      draft.step = null;
      record(draft);
    });
    journal.close();
    if (this.notices.length === noticesBefore) await this.watch.settledAt(toSha);
    else this.watch.forget();
    return { toSha, savedRef };
  }

  /** HEAD on the run's branch at the checkpoint, with no git operation half-way. */
  private async isAtCheckpoint(head: HeadPosition): Promise<boolean> {
    if (head.kind !== 'branch' || head.name !== this.branch || head.sha !== this.checkpointSha) {
      return false;
    }
    return (await operationInProgress(this.repo.gitDir)) === null;
  }

  /**
   * Finishes another interrupted step first, then records this one. Returns true when this
   * very step was interrupted before (the sequence is resuming).
   */
  private async enterStep(step: RunStep, opts: CallOptions): Promise<boolean> {
    this.refuseIfFinished();
    const pending = this.current.step;
    if (pending && sameStep(pending, step)) return true;
    if (pending?.op === 'cleanup') throw this.cleanupPending();
    if (pending) await this.finishInterruptedStep(opts);
    await this.update((draft) => {
      draft.step = step;
    });
    return false;
  }

  protected refuseIfFinished(): void {
    if (this.current.status === 'finished') {
      throw new UsageError(
        keptWorkAdvice(this.current) ??
          `the run of ${this.change} is already finished (${this.current.choice ?? 'no choice'}): start a new one with \`ralphtool run ${this.change}\``,
      );
    }
  }

  private cleanupPending(): UsageError {
    return new UsageError(
      `a cleanup of ${this.change} was interrupted: complete it with \`ralphtool finish ${this.change} --cleanup\``,
    );
  }

  private async finish(
    choice: CompletionChoice,
    outcome: RunOutcome | undefined,
    final = true,
  ): Promise<void> {
    await this.update((draft) =>
      recordChoice(draft, choice, outcome ?? draft.outcome ?? 'stopped', final),
    );
    if (this.current.status !== 'finished') return;
    this.closeRefWriter();
    // From the user's work tree when the run's own worktree was given back.
    const g = this.runGit({});
    const home = this.current.home;
    const gone = home !== undefined && home !== null && !existsSync(g.repo.root);
    await unpinCheckpoint(gone ? { ...g, ctx: homeContext(g.ctx, home) } : g);
  }
}

/** The journal's name of a sequence: its op and what it is for (`accept 2`, `revert 2-1`). */
function sequenceName(step: RunStep): string {
  const of = step.attempt === undefined ? step.storyId : `${step.storyId}-${step.attempt}`;
  return of === undefined ? step.op : `${step.op} ${of}`;
}

function sameStep(a: RunStep, b: RunStep): boolean {
  return a.op === b.op && a.storyId === b.storyId && a.attempt === b.attempt;
}

function requireStory(step: RunStep): string {
  if (step.storyId === undefined) {
    throw new RuntimeError(`the interrupted ${step.op} has no story id in the run state`);
  }
  return step.storyId;
}
