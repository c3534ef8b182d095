import { commitEverything, stageAll } from '../git/commit.js';
import { readAddListing, type AddListing } from '../git/snapshot.js';
import { git } from '../git/git.js';
import { endBisect, quitOperations } from '../git/operations.js';
import { commitSummary, headPosition } from '../git/repo.js';
import type { RunGit } from './run-git.js';
import { undoBranchSwitch } from './branch-switch.js';
import { isClean } from '../git/status.js';
import { leaveIgnoredOutOfIndex, leftOutNotice } from './leave-out.js';
import { detachNestedRepos, madeInListing, nestedNotice } from './nested-repos.js';
import type { Protection } from './repo-guard.js';
import { tasksFilesCommitted } from './ignored-tasks.js';
import { stoppedTracking, untrack } from './stopped-tracking.js';
import { RuntimeError } from '../core/errors.js';
import type { Journal, StepOutcome } from './journal.js';
import type { AcceptStep } from './plans.js';

/** Subject of the commit that records a completed story. */
export function checkpointMessage(storyId: string): string {
  return `checkpoint: ${storyId}`;
}

/** The whole message: the subject, then the body when there is one (core/checkpoint-body.ts). */
function checkpointCommitMessage(storyId: string, body: string | undefined): string {
  const subject = checkpointMessage(storyId);
  return body === undefined || body === '' ? subject : `${subject}\n\n${body}`;
}

/**
 * The steps of an accept (plans.ts, `ACCEPT_STEPS`) up to its commit: the whole work tree as one
 * commit on top of the checkpoint, on the run's branch; commits the agent made itself are folded
 * in, so the branch keeps one commit per story. Each step is safe to run again; what a step
 * found that a later one needs (the files the attempt stopped tracking, the commit) is kept in
 * the journal, so a crash between them loses none of it.
 */
export class AcceptGitSteps {
  /** A commit of this accept made before a crash, taken as it is (`find-own-commit`). */
  private own: string | null = null;
  private stopped: string[] = [];
  private made: string | null = null;
  private readonly storyId: string;
  private readonly body: string | undefined;

  constructor(
    private readonly g: RunGit,
    private readonly checkpoint: string,
    { storyId, body }: { storyId: string; body?: string },
    private readonly protect: Protection,
    journal: Journal,
  ) {
    this.storyId = storyId;
    this.body = body;
    this.own = stringData(journal.dataOf('find-own-commit'));
    this.stopped = stringsData(journal.dataOf('read-stopped-tracking'));
    this.made = stringData(journal.dataOf('commit'));
  }

  /** The commit made (or found made), once the `commit` step has run. */
  commit(): string {
    const sha = this.made ?? this.own;
    if (sha === null) throw new RuntimeError(`the accept of ${this.storyId} made no commit`);
    return sha;
  }

  async run(step: AcceptGitStep): Promise<StepOutcome | undefined> {
    const { g, checkpoint } = this;
    const { ctx, repo } = g;
    // The commit was made before a crash: nothing before it is to be done again.
    if (this.own !== null && step !== 'end-bisect') {
      if (step === 'commit') tasksFilesCommitted(g, null);
      return undefined;
    }
    switch (step) {
      case 'find-own-commit':
        this.own = await this.findOwnCommit();
        return { data: this.own };
      case 'quit-operations':
        // Half-done merges and rebases would turn the checkpoint into a merge commit or a mess
        // (a MERGE_HEAD written by hand moves no HEAD).
        await quitOperations(ctx, repo.gitDir);
        return undefined;
      case 'read-stopped-tracking':
        this.stopped = await stoppedTracking(g, checkpoint);
        return { data: this.stopped };
      case 'undo-branch-switch':
        // Files that only a branch switch of the agent changed get the checkpoint's version back.
        await undoBranchSwitch(g, checkpoint);
        return undefined;
      case 'branch-to-checkpoint':
        await this.branchToCheckpoint();
        return undefined;
      case 'index-to-checkpoint':
        // The index back to the checkpoint, then `add -A` from the files: what the agent staged
        // or committed is taken from the work tree, except ignored files it force-added (`.env`,
        // `node_modules/`), which must never end up in a checkpoint.
        await git(ctx, ['reset', '-q', '--mixed', checkpoint, '--'], {
          context: 'could not reset the index',
        });
        return undefined;
      case 'detach-nested':
        await this.detachNested();
        return undefined;
      case 'commit':
        this.made = await this.commitAll();
        return { data: this.made };
      case 'end-bisect':
        await endBisect(ctx, repo.gitDir);
        return undefined;
    }
  }

  /** HEAD on the run's branch at a clean commit of this very accept on the checkpoint, or null. */
  private async findOwnCommit(): Promise<string | null> {
    const { ctx } = this.g;
    const head = await headPosition(ctx);
    if (head.kind !== 'branch' || head.name !== this.g.branch || head.sha === this.checkpoint) {
      return null;
    }
    const summary = await commitSummary(ctx, head.sha);
    const ours =
      summary.subject === checkpointMessage(this.storyId) &&
      summary.parents.join(' ') === this.checkpoint;
    return ours && (await isClean(ctx)) ? head.sha : null;
  }

  /** Points the branch (and so HEAD) at the checkpoint, the files as the agent left them. */
  private async branchToCheckpoint(): Promise<void> {
    const { ctx } = this.g;
    const head = await headPosition(ctx);
    if (head.kind === 'detached' || head.name !== this.g.branch) {
      await git(ctx, [
        'symbolic-ref',
        '-m',
        'ralphtool: accept',
        'HEAD',
        `refs/heads/${this.g.branch}`,
      ]);
    }
    await git(ctx, [
      'update-ref',
      '-m',
      `ralphtool: accept ${this.storyId}`,
      `refs/heads/${this.g.branch}`,
      this.checkpoint,
    ]);
  }

  /** Repositories the attempt created are committed as plain files, never as gitlinks. */
  private async detachNested(): Promise<void> {
    const { detached: nested } = await detachNestedRepos(this.g, this.protect.label);
    if (nested.length > 0) {
      const saved = `${this.g.paths.dir}/nested/${this.protect.label}/`;
      this.protect.notices.push(
        nestedNotice(nested, saved, 'committed their files as plain files'),
      );
    }
  }

  /** Files ignored when the run started stay out even when the attempt un-ignored them. */
  private async commitAll(): Promise<string> {
    const { g, checkpoint, protect } = this;
    return commitEverything(
      g.ctx,
      checkpointCommitMessage(this.storyId, this.body),
      async (staged) => {
        const listing = await this.nestedOutOfIndex(staged);
        tasksFilesCommitted(g, listing);
        await untrack(g, this.stopped);
        // The index was at the checkpoint before `add -A` (reset there, or never touched).
        const left = await leaveIgnoredOutOfIndex(g, protect.guard, checkpoint, listing);
        if (left.length > 0) protect.notices.push(leftOutNotice(left, 'the checkpoint'));
      },
      g.repo,
      // git refuses to add a nested repository without a commit: it becomes plain files first.
      () => this.detachNested(),
    );
  }

  /**
   * Repositories the attempt made, found in what `add -A` staged (`madeInListing`), are taken
   * out of the index, made plain files, and the work tree staged again.
   * Returns the listing of everything staged.
   */
  private async nestedOutOfIndex(staged: AddListing | null): Promise<AddListing | null> {
    const { g, checkpoint } = this;
    if (staged === null) {
      // git's listing could not be read back (a name with a line break): the search by listing.
      await git(g.ctx, ['reset', '-q', '--mixed', checkpoint, '--']);
      await this.detachNested();
      return readAddListing(await stageAll(g.ctx));
    }
    const made = await madeInListing(g, checkpoint, staged);
    if (made.length === 0) return staged;
    await git(g.ctx, ['reset', '-q', checkpoint, '--', ...made]);
    await this.detachNested();
    const again = readAddListing(await stageAll(g.ctx));
    if (again === null) return null;
    const added = new Set([...staged.added, ...again.added].filter((p) => !made.includes(p)));
    return { added, removed: new Set([...staged.removed, ...again.removed]) };
  }
}

/** The accept's git steps (plans.ts): all but the ignored tasks.md's record and the pin. */
export type AcceptGitStep = Exclude<AcceptStep, 'remember-ignored-tasks' | 'pin'>;

function stringData(data: unknown): string | null {
  return typeof data === 'string' ? data : null;
}

function stringsData(data: unknown): string[] {
  return Array.isArray(data) ? data.filter((item): item is string => typeof item === 'string') : [];
}
