import { hostname } from 'node:os';
import { rm } from 'node:fs/promises';
import { UsageError } from '../core/errors.js';
import { ralphBranch } from './paths.js';
import { readRunState, writeRunState } from './state.js';
import { isKeptIncomplete, keptWorkAdvice } from './records.js';
import { saveBeforeForce, type ForcedSave } from './forced-save.js';
import type { OriginalBranch, RunHome, RunState } from './state.js';
import { CheckpointRun } from './checkpoint.js';
import type { RunLocation } from './types.js';
import { git } from '../git/git.js';
import type { GitContext } from '../git/git.js';
import { branchesInTheWay, branchSha, headPosition } from '../git/repo.js';
import type { HeadPosition } from '../git/repo.js';
import { engineContext, locateRun } from './run-git.js';
import { atOriginal } from './start-sequence.js';
import { operationInProgress } from '../git/status.js';
import { protectUserFiles } from './user-files.js';

export interface StartOptions extends RunLocation {
  /** Reset an existing `ralph/<change>` branch that no active run owns. */
  force?: boolean | undefined;
  /** Told what `force` saved (the old tip and attempt refs) before the branch is reset. */
  onForced?: ((saved: ForcedSave) => void) | undefined;
  /** Stops the start sequence only; the returned run does not keep it. */
  signal?: AbortSignal;
  /**
   * A run in a worktree of its own (`cwd` is that worktree, created detached at the user's
   * commit): the user's work tree and where its HEAD was, recorded as the original branch.
   */
  home?: { home: RunHome; head: HeadPosition } | undefined;
}

/**
 * "Start" of the git protocol (docs/git-protocol.md; the refusals: docs/contract.md, "Start"):
 * refuses (UsageError, nothing changed) when the repository is not ready, else records where the user is, moves to `ralph/<change>` and commits everything
 * as "initial state". The caller checks that the change exists and holds the run lock.
 */
export async function startRun(opts: StartOptions): Promise<CheckpointRun> {
  const located = await locateRun(opts);
  const { change, repo, ctx, engine, paths } = located;
  const branch = ralphBranch(change);

  const operation = await operationInProgress(repo.gitDir);
  if (operation) throw operationRefusal(operation);
  const recorded = await readRunState(paths.state);
  refuseRecordedRun(recorded, change);
  const head = await headPosition(ctx);
  if (head.kind !== 'detached' && head.name === branch) {
    throw new UsageError(
      `HEAD is on ${branch}, the branch a run works on: switch to your own branch first (\`git switch <branch>\`)`,
    );
  }
  const inTheWay = await branchesInTheWay(ctx, branch);
  if (inTheWay[0] !== undefined) {
    throw new UsageError(
      `git cannot make the branch ${branch} while the branch ${inTheWay[0]} exists (a branch name cannot also be a folder of branches): rename it (\`git branch -m ${inTheWay[0]} <new-name>\`) and run again`,
    );
  }
  const oldTip = await branchSha(ctx, branch);
  if (oldTip !== null) {
    if (!opts.force) {
      throw new UsageError(
        (recorded === null ? null : keptWorkAdvice(recorded)) ??
          `branch ${branch} already exists but no run of ${change} is active: delete it with \`git branch -D ${branch}\` or pass --force to reset it`,
      );
    }
    const elsewhere = await worktreeUsing(ctx, branch);
    if (elsewhere) {
      throw new UsageError(
        `branch ${branch} is checked out in the worktree ${elsewhere}: switch that worktree to another branch first`,
      );
    }
  }

  // Refuses what no snapshot can hold exactly and saves the exact bytes and the staged
  // versions, all before the first write: a refusal leaves the repository untouched.
  await protectUserFiles({ change, ctx, repo, paths }, head);
  if (oldTip !== null) opts.onForced?.(await saveBeforeForce(ctx, change, oldTip));

  const state = initialRunState(
    change,
    branch,
    opts.home?.head ?? head,
    { root: repo.root, gitDir: repo.gitDir },
    opts.home?.home,
  );
  // A journal left by an earlier run's start is no part of this one (journal.ts).
  await rm(paths.journal, { force: true });
  await writeRunState(paths.state, state);
  const { signal: _signal, ...kept } = engine;
  const run = new CheckpointRun(repo, paths, state, kept);
  try {
    await run.finishInterruptedStep(opts.signal ? { signal: opts.signal } : {});
  } catch (error) {
    // Nothing happened in git yet: forget the record so that the next start is not refused.
    const now = await headPosition(engineContext(repo, kept)).catch(() => null);
    if (now && atOriginal(now, state)) {
      await rm(paths.state, { force: true });
    }
    throw error;
  }
  return run;
}

/** The record written before the start touches git (`step: start`), so a crash can be finished. */
export function initialRunState(
  change: string,
  branch: string,
  head: HeadPosition,
  worktree?: RunState['worktree'],
  home?: RunHome,
): RunState {
  const now = new Date().toISOString();
  const originalBranch: OriginalBranch =
    head.kind === 'detached'
      ? { kind: 'detached', sha: head.sha }
      : { kind: head.kind, name: head.name };
  return {
    version: 1,
    change,
    branch,
    originalBranch,
    originalSha: head.kind === 'unborn' ? null : head.sha,
    baseSha: null,
    checkpointSha: null,
    status: 'active',
    outcome: null,
    choice: null,
    step: { op: 'start' },
    stories: {},
    currentStory: null,
    currentAttempt: null,
    costUsd: 0,
    startedAt: now,
    updatedAt: now,
    pid: process.pid,
    agentPgid: null,
    agentIdentity: null,
    host: hostname(),
    ...(worktree ? { worktree } : {}),
    ...(home ? { home } : {}),
  };
}

/** A start is refused while a run of the change is recorded and not finished. */
export function refuseRecordedRun(recorded: RunState | null, change: string): void {
  if (recorded && isKeptIncomplete(recorded)) {
    throw new UsageError(
      `a run of ${change} was kept incomplete (${recorded.outcome ?? 'stopped'}) on ${ralphBranch(change)}: continue it with \`ralphtool resume ${change}\` or end it with \`ralphtool finish ${change} --cleanup|--keep\``,
    );
  }
  if (recorded?.status === 'active') {
    throw new UsageError(
      `a run of ${change} is recorded and not finished: continue it with \`ralphtool resume ${change}\` or end it with \`ralphtool finish ${change} --cleanup|--keep\``,
    );
  }
}

function operationRefusal(operation: string): UsageError {
  const how =
    operation === 'bisect'
      ? '`git bisect reset`'
      : `\`git ${operation} --continue\` or \`git ${operation} --abort\``;
  return new UsageError(
    `a ${operation} is in progress in this repository: finish it with ${how} before starting a run`,
  );
}

/** The other worktree that has `branch` checked out, if any. */
async function worktreeUsing(ctx: GitContext, branch: string): Promise<string | null> {
  const out = await git(ctx, ['worktree', 'list', '--porcelain']);
  let path: string | null = null;
  for (const field of out.stdout.split('\n')) {
    if (field.startsWith('worktree ')) path = field.slice('worktree '.length);
    if (field === `branch refs/heads/${branch}`) return path;
  }
  return null;
}
