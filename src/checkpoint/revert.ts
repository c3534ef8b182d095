import { commitTree } from '../git/commit.js';
import { git } from '../git/git.js';
import { endBisect, quitOperations } from '../git/operations.js';
import { branchSha, refCommit, resolveCommit, treeOf } from '../git/repo.js';
import { indexFile, setOwnRef } from './run-git.js';
import type { RunGit } from './run-git.js';
import { snapshotWithListing } from '../git/snapshot.js';
import {
  cleanUntracked,
  knownAfterSave,
  MAX_CLEAN_PASSES,
  type KnownUntracked,
} from './revert-clean.js';
import { mkdir } from 'node:fs/promises';
import { ignoredInHistory, leaveIgnoredOutOfTree, leftOutNotice } from './leave-out.js';
import { detachNestedRepos, madeInListing, nestedNotice } from './nested-repos.js';
import type { Protection } from './repo-guard.js';
import { RuntimeError } from '../core/errors.js';
import type { Journal, StepOutcome } from './journal.js';
import type { RevertStep } from './plans.js';

export interface RestoreResult {
  /** The ref holding the attempt's saved work. */
  savedRef: string;
  /** The commit the ref points at; its tree is the attempt's whole work tree. */
  savedSha: string;
}

export interface RestoreOptions {
  checkpoint: string;
  /** Where the attempt is saved: `refs/ralphtool/<change>/attempts/<story>-<attempt>`. */
  ref: string;
  /** `<story>-<attempt>`, for the saved commit's message. */
  label: string;
  /** Files ignored at the start, kept out of the save and the clean; notices for the user. */
  protect: Protection;
}

/** The revert's git steps (plans.ts, `REVERT_STEPS`): all but the user's bytes and tasks.md. */
export type RevertGitStep = Exclude<RevertStep, 'user-bytes' | 'ignored-tasks'>;

/**
 * The git steps of a revert (plans.ts): everything an attempt left (files, untracked files, its
 * own commits) saved under a ref, then HEAD, the branch, the index and the files back to the
 * checkpoint. Ignored files are never touched. Each step is safe to run again; what the save
 * made is read back from the journal (and checked against the ref) when it was done before.
 */
export class RevertGitSteps {
  private readonly message: string;
  /** The save so far (the attempt's ref), once the save step ran or was read back. */
  private saved: string | null = null;
  /** What the save and the nested-repository search told about the clean (this run only). */
  private untracked: readonly string[] | null = null;
  private known: KnownUntracked | null = null;

  constructor(
    private readonly g: RunGit,
    private readonly opts: RestoreOptions,
    private readonly journal: Journal,
  ) {
    this.message = `ralphtool: attempt ${opts.label} of ${g.change}`;
  }

  /** Runs one step; `again` when it may have run before. */
  async run(step: RevertGitStep, again: boolean): Promise<StepOutcome | undefined> {
    const { ctx, repo } = this.g;
    switch (step) {
      case 'detach-nested':
        await this.detachNested();
        return undefined;
      case 'save':
      case 'save-at-checkpoint':
        await this.save(step === 'save-at-checkpoint', again);
        return undefined;
      case 'quit-operations':
        await quitOperations(ctx, repo.gitDir);
        return undefined;
      case 'branch-to-checkpoint':
        await this.branchToCheckpoint();
        return undefined;
      case 'files-to-checkpoint':
        await git(ctx, ['reset', '-q', '--hard', this.opts.checkpoint], {
          context: 'could not reset the files',
        });
        return undefined;
      case 'clean-untracked':
        await cleanUntracked(this.g, this.opts, {
          known: this.known,
          saved: await this.savedSoFar(),
          message: this.message,
          moveSave: async (sha) => {
            await updateRef(this.g, this.opts.ref, sha);
            this.saved = sha;
          },
        });
        return undefined;
      case 'end-bisect':
        await endBisect(ctx, repo.gitDir);
        return undefined;
    }
  }

  /** Where the attempt is saved, once the sequence has run. */
  async result(): Promise<RestoreResult> {
    return { savedRef: this.opts.ref, savedSha: await this.savedSoFar() };
  }

  private async detachNested(): Promise<void> {
    const { g, opts } = this;
    // The agent may have deleted the run folder, where the temporary indexes go.
    await mkdir(g.paths.dir, { recursive: true });
    // Repositories the attempt created: their .git to the run folder, their files saved below
    // as plain files (git would save a gitlink, or refuse), then removed by the clean.
    const { detached: nested, untracked } = await detachNestedRepos(g, opts.label);
    this.untracked = untracked;
    if (nested.length > 0) {
      const saved = `${g.paths.dir}/nested/${opts.label}/`;
      opts.protect.notices.push(
        nestedNotice(nested, saved, `saved their files under ${opts.ref}, then removed them`),
      );
    }
  }

  /**
   * Saves the attempt without touching the real index or the files. `atCheckpoint`: HEAD, the
   * branch and the index are known to be at the checkpoint (the fast path). Run again, a save
   * made from this checkpoint (the ref's first-parent line reaches it) is kept: the work tree
   * may be half reverted already, and snapshotting it again would bury the attempt's work.
   */
  private async save(atCheckpoint: boolean, again: boolean): Promise<void> {
    const { g, opts } = this;
    const { ctx, repo } = g;
    const { checkpoint, ref } = opts;
    await mkdir(g.paths.dir, { recursive: true });
    const previous = await refCommit(ctx, repo, ref);
    if (again && previous !== null && (await savedFrom(ctx, previous, checkpoint))) {
      this.saved = previous;
      return;
    }
    // The checkpoint commit stands for its tree (`read-tree` takes either).
    const take = (): ReturnType<typeof snapshotWithListing> =>
      snapshotWithListing(ctx, {
        scratchDir: g.paths.dir,
        startIndex: indexFile(repo),
        baseTree: checkpoint,
        startIndexIsBase: atCheckpoint,
      });
    // The fast path plans no search for nested repositories: the save finds them (plans.ts).
    const snapshot = atCheckpoint ? await this.takeFindingNested(take) : await take();
    const { tree, left } = await leaveIgnoredOutOfTree(
      g,
      opts.protect.guard,
      snapshot.tree,
      checkpoint,
      snapshot.listing,
    );
    if (left.length > 0) opts.protect.notices.push(leftOutNotice(left, `the save ${ref}`));
    const moved: string[] = [];
    const tips = atCheckpoint
      ? []
      : [await resolveCommit(ctx, 'HEAD'), await branchSha(ctx, g.branch)];
    for (const sha of tips) {
      if (sha === null || sha === checkpoint) continue;
      // The attempt's own commits are kept as parents, unless one holds a file ignored at the start.
      const held = await ignoredInHistory(g, opts.protect.guard, sha, checkpoint);
      if (held.length === 0) moved.push(sha);
      else
        opts.protect.notices.push(
          leftOutNotice(held, `the save ${ref} (with the commits holding them)`),
        );
    }
    let saved = previous;
    const nothingNew = again && moved.length === 0 && tree === (await treeOf(ctx, checkpoint));
    if (saved === null || !nothingNew) {
      // An earlier run's save of the same attempt name stays reachable as a parent.
      const parents = unique([checkpoint, ...moved, ...(previous ? [previous] : [])]);
      saved = await commitTree(ctx, tree, parents, this.message);
      await updateRef(g, ref, saved);
    }
    this.saved = saved;
    this.known = knownAfterSave(atCheckpoint, snapshot.listing, left, this.untracked);
  }

  /**
   * The save at the checkpoint finds the repositories the attempt made in what its `add -A` took
   * (`madeInListing`). When it found some, git refused the add (a nested repository without a
   * commit) or its listing could not be read back, the search by listing runs and the save is
   * taken again. Run again after a crash, the full plan's own `detach-nested` step does this.
   */
  private async takeFindingNested(
    take: () => ReturnType<typeof snapshotWithListing>,
  ): ReturnType<typeof snapshotWithListing> {
    const first = await take().catch(() => null);
    if (first?.listing) {
      const made = await madeInListing(this.g, this.opts.checkpoint, first.listing);
      if (made.length === 0) return first;
    }
    await this.detachNested();
    return take();
  }

  /**
   * Not `checkout -f`: it deletes every file the attempt's HEAD tracks and the checkpoint does
   * not, and an agent that force-added `.env` or `node_modules/` would lose the user's ignored
   * files that way. Instead the branch is pointed at the checkpoint, the index reset to it
   * (files only the attempt tracked become untracked, and ignored ones stay), and only then the
   * checkpoint's own files are rewritten (`files-to-checkpoint`).
   */
  private async branchToCheckpoint(): Promise<void> {
    const { ctx } = this.g;
    const { checkpoint } = this.opts;
    const branchRef = `refs/heads/${this.g.branch}`;
    const context = `could not return to ${this.g.branch}`;
    await git(ctx, ['update-ref', '-m', 'ralphtool: revert', branchRef, checkpoint], { context });
    await git(ctx, ['symbolic-ref', '-m', 'ralphtool: revert', 'HEAD', branchRef], { context });
    await git(ctx, ['reset', '-q', '--mixed', checkpoint, '--'], {
      context: 'could not reset the index',
    });
  }

  /**
   * The save as it stands: this run's, or — the save step done before a crash — the attempt's
   * ref, which must be a save from this checkpoint (the journal is trusted only as far as git
   * agrees with it).
   */
  private async savedSoFar(): Promise<string> {
    if (this.saved !== null) return this.saved;
    const { ctx, repo } = this.g;
    const { ref, checkpoint } = this.opts;
    const atRef = await refCommit(ctx, repo, ref);
    if (atRef === null || !(await savedFrom(ctx, atRef, checkpoint))) {
      throw new RuntimeError(
        `the revert of ${this.opts.label} was interrupted and its save ${ref} is not where the run's journal says: the attempt's work may be in \`git reflog ${ref}\`; ${this.journal.sequence} cannot go on`,
      );
    }
    this.saved = atRef;
    return atRef;
  }
}

/** Whether a save was made from this checkpoint (a save, then up to a few "files it ignored"). */
async function savedFrom(ctx: RunGit['ctx'], save: string, checkpoint: string): Promise<boolean> {
  const depth = String(MAX_CLEAN_PASSES + 2);
  const out = await git(ctx, ['rev-list', '--first-parent', '-n', depth, save]);
  return out.stdout.split('\n').includes(checkpoint);
}

async function updateRef(g: RunGit, ref: string, sha: string): Promise<void> {
  await setOwnRef(g, ref, sha, 'could not save the attempt');
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}
