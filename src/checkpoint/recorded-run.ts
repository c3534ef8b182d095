import { RuntimeError } from '../core/errors.js';
import type { RunOutcome } from '../core/events.js';
import type { SandboxBlock } from '../core/sandbox-blocks.js';
import type { RunPaths } from './paths.js';
import {
  recordAgent,
  recordAnswer,
  recordAttemptStart,
  recordSandboxBlocks,
  recordTestGate,
  storyProgress,
} from './records.js';
import { writeRunState } from './state.js';
import type {
  FallbackRecord,
  IntentRecord,
  LimitWaitRecord,
  RunState,
  StoryProgress,
} from './state.js';

/**
 * A run's record (state.json) and the steps that change only the record; CheckpointRun adds
 * the git protocol. Every write replaces the file atomically, so a crash leaves the old
 * record or the new one.
 */
export class RecordedRun {
  protected current: RunState;

  constructor(
    readonly paths: RunPaths,
    state: RunState,
  ) {
    this.current = state;
  }

  get state(): RunState {
    return this.current;
  }

  get change(): string {
    return this.current.change;
  }

  get branch(): string {
    return this.current.branch;
  }

  /** The commit every attempt starts from. */
  get checkpointSha(): string {
    const sha = this.current.checkpointSha;
    if (sha === null) throw this.startUnfinished();
    return sha;
  }

  /** The "initial state" commit. */
  get baseSha(): string {
    const sha = this.current.baseSha;
    if (sha === null) throw this.startUnfinished();
    return sha;
  }

  /** Where the user was at the start, as shown to people: a branch name or a short sha. */
  get originalLabel(): string {
    const original = this.current.originalBranch;
    return original.kind === 'detached' ? original.sha.slice(0, 12) : original.name;
  }

  /** The story's recorded progress (attempts used, cost, last failure). */
  progressOf(storyId: string): StoryProgress {
    return storyProgress(this.current, storyId);
  }

  /**
   * The loop runs in process `pid` (again, after a crash): the dead run's agent is forgotten,
   * and so is how an earlier loop ended (a kept incomplete run is running again).
   */
  async claim(pid: number): Promise<void> {
    await this.update((draft) => {
      draft.pid = pid;
      draft.agentPgid = null;
      draft.outcome = null;
      draft.choice = null;
    });
  }

  /** No process runs the loop any more; the run stays recorded for `resume` or `finish`. */
  async release(): Promise<void> {
    await this.update((draft) => {
      draft.pid = null;
    });
  }

  /** How the loop ended; `cleanup` and `keep` record it again as they end the run. */
  async recordOutcome(outcome: RunOutcome): Promise<void> {
    await this.update((draft) => {
      draft.outcome = outcome;
    });
  }

  /** How many stories tasks.md has now (`status --remote` reads it from the pushed record). */
  async recordStoriesTotal(total: number): Promise<void> {
    if (this.state.storiesTotal === total) return;
    await this.update((draft) => {
      draft.storiesTotal = total;
    });
  }

  /**
   * The wall time of one more invocation of the run (`run`, each `resume`) that ended, added to
   * the run's total: the time a run took covers every invocation, as its cost does.
   */
  async recordElapsed(ms: number): Promise<number> {
    let total = 0;
    await this.update((draft) => {
      total = (draft.elapsedMs ?? 0) + Math.max(0, ms);
      draft.elapsedMs = total;
    });
    return total;
  }

  /** The run's cost budgets, kept for `resume` (docs/contract.md, "Budgets"). */
  async recordBudget(budget: NonNullable<RunState['budget']>): Promise<void> {
    await this.update((draft) => {
      draft.budget = { ...budget };
    });
  }

  /** The run's intent (core/run-intent.ts), kept for every continuation. */
  async recordIntent(intent: IntentRecord): Promise<void> {
    await this.update((draft) => {
      draft.intent = structuredClone(intent);
    });
  }

  /** The remote the run pushes to (`--push`), kept for `resume`; null: local only. */
  async recordRemote(push: string | null): Promise<void> {
    await this.update((draft) => {
      draft.remote = push === null ? null : { push };
    });
  }

  /** The answer to the run's open question (`resume --answer`), kept until its story is accepted. */
  async recordAnswer(answer: string): Promise<void> {
    await this.update((draft) => recordAnswer(draft, answer));
  }

  /** What the test gate saw of an attempt: its flakes, and the test changes it let through. */
  async recordTestGate(
    storyId: string,
    seen: { flakes: number; testChanges: readonly string[] },
  ): Promise<void> {
    if (seen.flakes === 0 && seen.testChanges.length === 0) return;
    await this.update((draft) => recordTestGate(draft, storyId, seen));
  }

  /** What the sandbox refused an attempt's agent (`--sandbox`); nothing to record: no write. */
  async recordSandboxBlocks(storyId: string, blocks: readonly SandboxBlock[]): Promise<void> {
    if (blocks.length === 0) return;
    await this.update((draft) => recordSandboxBlocks(draft, storyId, blocks));
  }

  /** Marks the attempt as the one running and counts it, before its agent starts. */
  async startAttempt(
    storyId: string,
    attempt: number,
    agent?: { agent: string; model: string | null },
  ): Promise<void> {
    await this.update((draft) => recordAttemptStart(draft, storyId, attempt, agent));
  }

  /** The fallback agents and until when each agent is limited (null: the run has none). */
  async recordFallback(fallback: FallbackRecord | null): Promise<void> {
    await this.update((draft) => {
      if (fallback === null) delete draft.fallback;
      else draft.fallback = structuredClone(fallback);
    });
  }

  /** The running attempt's agent: its process group and that process's identity. */
  async recordAgent(pgid: number, identity: string | null): Promise<void> {
    await this.update((draft) => recordAgent(draft, pgid, identity));
  }

  /** The verify ratchet after a baseline or an accepted attempt (core/verify-ratchet.ts). */
  /** The last review's verdict, for `report`. */
  async recordReview(review: NonNullable<RunState['review']>): Promise<void> {
    await this.update((draft) => {
      draft.review = review;
    });
  }

  /** The verify results of a story's accepted attempt, for `report`. */
  async recordAcceptedVerify(
    storyId: string,
    verify: NonNullable<StoryProgress['verify']>,
  ): Promise<void> {
    if (verify.length === 0) return;
    await this.update((draft) => {
      draft.stories[storyId] = { ...storyProgress(draft, storyId), verify: [...verify] };
    });
  }

  async recordVerify(entries: NonNullable<RunState['verify']>): Promise<void> {
    await this.update((draft) => {
      draft.verify = entries;
    });
  }

  /** A usage-limit wait begins (null: it is over); `resume` after a crash waits out the rest. */
  async recordWait(wait: LimitWaitRecord | null): Promise<void> {
    await this.update((draft) => {
      draft.wait = wait;
    });
  }

  /** Changes the record and writes it atomically. */
  protected async update(mutate: (draft: RunState) => void): Promise<void> {
    const draft = structuredClone(this.current);
    mutate(draft);
    draft.updatedAt = new Date().toISOString();
    await writeRunState(this.paths.state, draft);
    this.current = draft;
  }

  protected startUnfinished(): RuntimeError {
    return new RuntimeError(
      `the start of ${this.change} was interrupted: run \`ralphtool resume ${this.change}\``,
    );
  }
}
