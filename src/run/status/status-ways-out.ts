import type { RepoLocation } from '../../git/repo.js';
import {
  holderOf,
  isRunWorktree,
  listWorktrees,
  type RunState,
  runWorktreeRoot,
} from '../../checkpoint/index.js';

/** Where a recorded run lives with respect to the work tree `status` was asked in. */
export interface RunPlace {
  /** The run's work tree; null when it cannot be told (an old record, its branch nowhere). */
  root: string | null;
  /** True when `status` runs in the run's own work tree (or it cannot be told). */
  here: boolean;
  /** `ralphtool`, or `ralphtool -C <root>` when the run belongs to another work tree. */
  command: string;
  /** What stops the usual next command, with the one command that removes it; else null. */
  blocked: string | null;
}

/**
 * The run's work tree, and the states the usual advice would not get out of: its branch or
 * (for a cleanup) the original branch checked out in another work tree, or a start that
 * stopped before its first commit.
 */
export async function runPlace(
  repo: RepoLocation,
  state: RunState,
  interrupted: boolean,
  timeoutMs: number,
  baseEnv: NodeJS.ProcessEnv,
): Promise<RunPlace> {
  const trees =
    state.status === 'active' ? await listWorktrees({ cwd: repo.root, timeoutMs, baseEnv }) : [];
  const root = state.status === 'active' ? runWorktreeRoot(state, trees) : null;
  const here = isRunWorktree(state, repo, root);
  // A run in a worktree of its own is resumed and finished from the user's work tree too.
  const command = here || root === null || state.home ? 'ralphtool' : `ralphtool -C ${root}`;
  return {
    root,
    here,
    command,
    blocked: interrupted ? blocker(state, trees, root, command) : null,
  };
}

function blocker(
  state: RunState,
  trees: Awaited<ReturnType<typeof listWorktrees>>,
  root: string | null,
  command: string,
): string | null {
  const runHolder = holderOf(trees, state.branch, root);
  if (runHolder !== null) {
    return `branch ${state.branch} is also checked out in the worktree ${runHolder}, so the run cannot use it: \`git -C ${runHolder} switch --detach\` frees it (its files stay as they are)`;
  }
  const original = state.originalBranch;
  // A cleanup under way, or the completion question unanswered (a cleanup refused there).
  const cleaning =
    state.step?.op === 'cleanup' ||
    (state.step === null && state.outcome !== null && state.outcome !== 'error');
  // A run in a worktree of its own brings its work home to the user's tree, which has it out.
  if (cleaning && original.kind !== 'detached' && !state.home) {
    const holder = holderOf(trees, original.name, root);
    if (holder !== null) {
      return `a cleanup cannot go back to your branch ${original.name} while the worktree ${holder} has it checked out: \`git -C ${holder} switch --detach\` frees it (its files stay as they are)`;
    }
  }
  if (state.step?.op === 'start') {
    const back = original.kind === 'detached' ? original.sha.slice(0, 12) : original.name;
    return `the start of ${state.change} stopped before the run began: \`${command} finish ${state.change} --cleanup\` puts you back on ${back} with your files as they were`;
  }
  return null;
}
