import { RuntimeError } from '../core/errors.js';
import type { RunState } from './state.js';
import { commitEverything } from '../git/commit.js';
import { git } from '../git/git.js';
import { commitSummary, headPosition } from '../git/repo.js';
import type { HeadPosition } from '../git/repo.js';
import type { RunGit } from './run-git.js';
import type { Journal, StepOutcome } from './journal.js';
import type { StartStep } from './plans.js';

export const INITIAL_STATE_MESSAGE = 'initial state';

/**
 * The git steps of "Start" after its record (docs/git-protocol.md; plans.ts, `START_STEPS`):
 * `checkout -B ralph/<change>`, then everything committed as "initial state". Run again after a
 * crash, each looks at HEAD first: still at the original position, on the new branch, or
 * committed already.
 */
export class StartGitSteps {
  private made: string | null;

  constructor(
    private readonly g: RunGit,
    private readonly state: RunState,
    journal: Journal,
  ) {
    const recorded = journal.dataOf('initial-commit');
    this.made = typeof recorded === 'string' ? recorded : null;
  }

  /** The "initial state" commit, once `initial-commit` has run. */
  initialCommit(): string {
    if (this.made === null) throw new RuntimeError(`the start of ${this.g.change} made no commit`);
    return this.made;
  }

  async run(step: StartGitStep): Promise<StepOutcome | undefined> {
    if (step === 'create-branch') await this.createBranch();
    else this.made = await this.commitInitialState();
    return step === 'initial-commit' ? { data: this.made } : undefined;
  }

  private async createBranch(): Promise<void> {
    const { g, state } = this;
    const head = await headPosition(g.ctx);
    if (head.kind !== 'detached' && head.name === g.branch) return;
    if (!atOriginal(head, state)) {
      throw new RuntimeError(
        `the start of ${g.change} was interrupted and HEAD has moved since: switch back to where you started and run \`ralphtool resume ${g.change}\`, or delete ${g.paths.dir}`,
      );
    }
    await git(g.ctx, ['checkout', '-q', '-B', g.branch], {
      context: `could not create the branch ${g.branch}`,
    });
  }

  private async commitInitialState(): Promise<string> {
    const { g, state } = this;
    const head = await headPosition(g.ctx);
    if (head.kind === 'unborn' || head.sha === state.originalSha) {
      return commitEverything(g.ctx, INITIAL_STATE_MESSAGE);
    }
    const summary = await commitSummary(g.ctx, head.sha);
    const expectedParents = state.originalSha ? [state.originalSha] : [];
    if (
      summary.subject === INITIAL_STATE_MESSAGE &&
      summary.parents.join(' ') === expectedParents.join(' ')
    ) {
      return head.sha;
    }
    throw new RuntimeError(
      `the start of ${g.change} was interrupted and ${g.branch} points at an unexpected commit ${head.sha}: delete the branch and ${g.paths.dir}, then start again`,
    );
  }
}

/** The start's git steps (plans.ts): all but the pin. */
export type StartGitStep = Exclude<StartStep, 'pin'>;

/**
 * True when HEAD is where the run recorded the user was: for a run in its own worktree, where
 * that worktree was created (detached at the user's commit).
 */
export function atOriginal(head: HeadPosition, state: RunState): boolean {
  if (state.home) return head.kind === 'detached' && head.sha === state.originalSha;
  const original = state.originalBranch;
  switch (original.kind) {
    case 'branch':
      return head.kind === 'branch' && head.name === original.name;
    case 'detached':
      return head.kind === 'detached' && head.sha === original.sha;
    case 'unborn':
      return head.kind !== 'detached' && head.name === original.name;
  }
}
