import { GitDirWatch } from './git-dir-watch.js';
import { GuardedRun } from './guarded-run.js';
import {
  beginResolve,
  finishResolve,
  undoResolve,
  type ResolveRecord,
  type ResolveRequest,
} from './resolve-home.js';
import type { RunStep } from './state.js';
import type { CallOptions, EnsureResult } from './types.js';

/**
 * The engine's part of `--resolve-conflicts` (docs/git-protocol.md, "Bringing a colliding change
 * home"): the branch moved onto the user's work tree with a story to resolve the conflicts, and
 * back when the story is not done. The sequences are resolve-home.ts; `CheckpointRun` (which
 * extends this) finishes them after a crash and runs `dropUnfinishedResolve` before a cleanup
 * or a keep.
 */
export abstract class ResolvingRun extends GuardedRun {
  /** Git processes whose answer is known (git-dir-watch.ts). */
  protected readonly watch = new GitDirWatch(this.repo, this.branch);

  abstract ensureAtCheckpoint(opts?: CallOptions): Promise<EnsureResult>;
  abstract finishInterruptedStep(opts?: CallOptions): Promise<RunStep | null>;
  protected abstract refuseIfFinished(): void;

  /**
   * `--resolve-conflicts`: the branch moved onto the user's work tree with the conflicts in its
   * files and a story to resolve them (resolve-home.ts); the new checkpoint and the record written
   * in one state write. Null when nothing collides any more.
   */
  async resolveOntoHome(
    req: ResolveRequest,
    opts: CallOptions = {},
  ): Promise<ResolveRecord | null> {
    this.refuseIfFinished();
    if (this.current.step !== null) await this.finishInterruptedStep(opts);
    const begun = await beginResolve(this.runGit(opts), this.current, req, {
      atCheckpoint: async () => {
        await this.ensureAtCheckpoint(opts);
      },
      recordStep: (storyId) =>
        this.update((draft) => {
          draft.step = storyId === null ? null : { op: 'resolve', storyId };
        }),
      observe: this.options.observeSteps,
    });
    if (begun === null) return null;
    await this.resolved(begun);
    return begun.record;
  }

  /**
   * The resolve story was not done: the branch, the worktree and the checkpoint back where they
   * were before it (resolve-home.ts), the record forgotten.
   */
  async dropResolve(opts: CallOptions = {}): Promise<void> {
    const record = this.current.resolve ?? null;
    if (record === null) return;
    const resumed = this.current.step?.op === 'unresolve';
    if (!resumed) {
      await this.ensureAtCheckpoint(opts);
      await this.update((draft) => {
        draft.step = { op: 'unresolve' };
      });
    }
    const journal = await undoResolve(
      this.runGit(opts),
      record,
      resumed,
      this.options.observeSteps,
    );
    await this.update((draft) => {
      draft.checkpointSha = record.from;
      draft.resolve = null;
      draft.step = null;
    });
    journal.close();
    this.watch.forget();
  }

  /**
   * A cleanup or keep while the resolve story is not done (`finish`): its checkpoint holds the
   * conflict markers, so the branch goes back before it first.
   */
  protected async dropUnfinishedResolve(opts: CallOptions): Promise<void> {
    const resolve = this.current.resolve ?? null;
    if (resolve === null || this.current.step?.op === 'cleanup') return;
    if (this.current.stories[resolve.storyId]?.completed === true) return;
    await this.dropResolve(opts);
  }

  private async resolved(done: {
    record: ResolveRecord;
    checkpoint: string;
    journal: { close: () => void };
  }): Promise<void> {
    await this.update((draft) => {
      draft.checkpointSha = done.checkpoint;
      draft.resolve = done.record;
      draft.step = null;
    });
    done.journal.close();
    this.watch.forget();
  }

  /** A resolve a crash interrupted: finished forward from its journal, or forgotten. */
  protected async finishResolveStep(opts: CallOptions): Promise<void> {
    const finished = await finishResolve(this.runGit(opts), this.options.observeSteps);
    if (finished === null) await this.update((draft) => void (draft.step = null));
    else await this.resolved(finished);
  }
}
