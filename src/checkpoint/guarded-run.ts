import type { RunPaths } from './paths.js';
import { RecordedRun } from './recorded-run.js';
import type { RunState } from './state.js';
import { attemptRefTips, deleteAttemptRefs, listAttemptRefs } from './attempt-refs.js';
import type { RepoLocation } from '../git/repo.js';
import type { IdentityMemo } from '../git/git.js';
import type { CallOptions } from './types.js';
import { engineContext } from './run-git.js';
import type { EngineOptions, RunGit, TasksFilesMemo } from './run-git.js';
import { dirtySubmodules, statusEntries } from '../git/status.js';
import { RepoGuard, type Protection } from './repo-guard.js';
import { forgetProgress, saveProgress } from './progress.js';
import { RefWriter } from '../git/ref-writer.js';

/**
 * A recorded run with its repository: the engine's git context, the guard that puts back what
 * an agent changed in the git directory (repo-guard.ts), the notices of the git sequences, and
 * the queries on the run's refs. The git protocol itself is CheckpointRun's (checkpoint.ts).
 */
export abstract class GuardedRun extends RecordedRun {
  /** The repository as it was before the first attempt (see repo-guard.ts). */
  private guard: RepoGuard | null = null;
  /** What the git sequences did on their own that the user should be told (`takeNotices`). */
  protected notices: string[] = [];
  /** The commits' identity settings, found once per run (git/commit.ts). */
  private readonly identity: IdentityMemo = { settings: null };
  /** Where the change's tasks.md files are, found once per run (ignored-tasks.ts). */
  private readonly tasksFiles: TasksFilesMemo = { paths: null, tracked: new Set() };
  /** The run's own refs (pin, saves) through one git process (git/ref-writer.ts), once used. */
  private refWriter: RefWriter | null = null;

  constructor(
    readonly repo: RepoLocation,
    paths: RunPaths,
    state: RunState,
    protected readonly options: EngineOptions,
  ) {
    super(paths, state);
  }

  /**
   * What the last git sequences did on their own that the user should know (a config put
   * back, a nested repository turned into files, a secret left out); each is returned once.
   */
  takeNotices(): string[] {
    return this.notices.splice(0);
  }

  /** Submodules with changes of their own, which no revert touches (so they are reported). */
  async dirtySubmodules(opts: CallOptions = {}): Promise<string[]> {
    return dirtySubmodules(this.runGit(opts).ctx, this.repo.root);
  }

  /** Attempt refs of this change (every failed attempt's saved work). */
  async attemptRefs(opts: CallOptions = {}): Promise<string[]> {
    return listAttemptRefs(this.runGit(opts).ctx, this.change);
  }

  /** Attempt refs of this change with their commits (to tell which ones a command wrote). */
  async attemptRefTips(opts: CallOptions = {}): Promise<Map<string, string>> {
    return attemptRefTips(this.runGit(opts).ctx, this.change);
  }

  /** Deletes the attempt refs of this change (`--prune`) but `keep`; returns how many. */
  async pruneAttemptRefs(opts: CallOptions = {}, keep: readonly string[] = []): Promise<number> {
    return deleteAttemptRefs(this.runGit(opts).ctx, this.change, keep);
  }

  /**
   * Saves the attempt going on as the progress ref (progress.ts); null when there is none to
   * save (no attempt runs, a sequence is half-way, or the guard is not taken yet).
   */
  async saveProgress(opts: CallOptions = {}): Promise<string | null> {
    const state = this.state;
    if (this.guard === null || state.step !== null || state.checkpointSha === null) return null;
    if (state.currentStory === null || state.currentAttempt === null) return null;
    return saveProgress(this.runGit(opts), this.guard, {
      checkpoint: state.checkpointSha,
      storyId: state.currentStory,
      attempt: state.currentAttempt,
    });
  }

  /** Forgets the progress ref once its attempt ended. */
  async forgetProgress(opts: CallOptions = {}): Promise<void> {
    await forgetProgress(this.runGit(opts));
  }

  /**
   * Before any git sequence: the first time, takes the repository's guard (its config and
   * ignored files, before any agent ran); afterwards puts back what an agent changed.
   */
  protected async protect(opts: CallOptions, label: string): Promise<Protection> {
    const g = this.runGit(opts);
    if (this.guard === null) this.guard = await RepoGuard.capture(g);
    else this.notices.push(...(await this.guard.restore(g, label)));
    return { guard: this.guard, label, notices: this.notices };
  }

  /**
   * Puts back what the attempt `label` (`<story>-<attempt>`) changed in the git directory (its
   * config, hooks, …), before anything reads the attempt's work with git: a clean filter or an
   * fsmonitor the agent configured would run in ralphtool's git, and a config it broke would stop
   * it. What is put back is said with the next sequence's notices.
   */
  async putBackGitDir(label: string, opts: CallOptions = {}): Promise<void> {
    await this.protect(opts, label);
  }

  /** The work tree differs only by files that were ignored at the start (un-ignored since). */
  protected async onlyIgnoredAtStart(opts: CallOptions): Promise<boolean> {
    const guard = this.guard;
    if (guard === null || guard.ignored.length === 0) return false;
    const entries = await statusEntries(this.runGit(opts).ctx, { submodules: 'dirty' });
    return entries.every((e) => e.code === '??' && guard.isIgnoredAtStart(e.path));
  }

  protected runGit(opts: CallOptions): RunGit {
    const { signal } = opts;
    const ctx = engineContext(this.repo, { ...this.options, ...(signal ? { signal } : {}) });
    // Without the call's signal: a sequence that was entered ends its ref updates (journal.ts).
    this.refWriter ??= new RefWriter(engineContext(this.repo, this.options));
    return {
      ctx: { ...ctx, identity: this.identity },
      repo: this.repo,
      change: this.change,
      branch: this.branch,
      paths: this.paths,
      tasksFiles: this.tasksFiles,
      refs: this.refWriter,
    };
  }

  /**
   * Ends the git process the run's ref updates went through (a later update starts one): when
   * the run finishes, and when its loop ends without finishing.
   */
  closeRefWriter(): void {
    this.refWriter?.close();
  }
}
