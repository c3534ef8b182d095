import { existsSync } from 'node:fs';
import { constants } from 'node:fs';
import { access, mkdir, rm, rmdir } from 'node:fs/promises';
import { hostname } from 'node:os';
import path from 'node:path';
import { userMessageOf } from '../core/error-details.js';
import { RuntimeError, UsageError } from '../core/errors.js';
import { locateRepo } from '../git/repo.js';
import { keptWorkAdvice, notInRepo, runPaths, type RunState } from '../checkpoint/index.js';
import { groupAlive, signalGroup } from '../process/process-group.js';
import { processesInGroup } from '../process/proc.js';
import { acquireLock, processIdentity, type HeldLock, type LockHolder } from './lock.js';

export interface SessionLocks {
  /** Warnings worth showing (a stale lock taken over). */
  warnings: string[];
  release(): Promise<void>;
  /** Removes the run folder made for the lock when no run was recorded in it (a refused start). */
  forgetIfUnused(): Promise<void>;
}

/**
 * Takes the two locks a run needs: one per change (one ralphtool per change) and one
 * per work tree (two changes cannot share a working tree). Both are files under git's
 * directories, so they are never committed or reverted.
 */
export async function lockSession(
  cwd: string,
  change: string,
  timeoutMs: number,
  /** The environment git starts from: the command's. */
  baseEnv: NodeJS.ProcessEnv,
  /**
   * `workTree: false`: the change's lock only. A run in a worktree of its own takes that
   * worktree's lock itself (`lockWorkTree`) once the worktree exists; the user's work tree,
   * where the command started, is not the run's and stays free for other runs.
   */
  opts: { workTree?: boolean } = {},
): Promise<SessionLocks> {
  const repo = await locateRepo({ cwd, timeoutMs, baseEnv });
  if (!repo) throw notInRepo(cwd);
  const paths = runPaths(repo.gitCommonDir, change);
  await makeRunFolder(paths.dir);
  // A refusal leaves nothing behind: the folder goes again when it is empty (never when it
  // holds another ralphtool's lock or a run's files).
  const removeIfEmpty = async (): Promise<void> => {
    await rmdir(paths.dir).catch(() => undefined);
    await rmdir(path.dirname(paths.dir)).catch(() => undefined);
  };
  let worktree: HeldLock | null = null;
  if (opts.workTree !== false) {
    try {
      worktree = await lockWorkTree(repo.gitDir, change);
    } catch (error) {
      await removeIfEmpty();
      throw error;
    }
  }
  let changeLock: HeldLock;
  try {
    changeLock = await acquireLock(
      paths.lock,
      change,
      (h) =>
        `another ralphtool is running ${change} (pid ${h.pid} on ${h.host}, since ${h.since}): wait for it or stop it first`,
    );
  } catch (error) {
    await worktree?.release();
    await removeIfEmpty();
    throw error;
  }
  const warnings = [worktree?.tookOverFrom ?? null, changeLock.tookOverFrom]
    .filter((h): h is LockHolder => h !== null)
    .slice(0, 1)
    .map(
      (h) =>
        `took over the lock of a ralphtool that is gone (pid ${h.pid} on ${h.host}, since ${h.since})`,
    );
  return {
    warnings,
    release: async () => {
      await changeLock.release();
      await worktree?.release();
    },
    forgetIfUnused: async () => {
      if (existsSync(paths.state)) return;
      await rm(paths.dir, { recursive: true, force: true }).catch(() => undefined);
      // The folder of all runs too, when this was its only one (rmdir refuses a non-empty one).
      await rmdir(path.dirname(paths.dir)).catch(() => undefined);
    },
  };
}

/** The lock that keeps two runs out of one working tree: `<git-dir>/ralphtool-worktree.lock`. */
export async function lockWorkTree(gitDir: string, change: string): Promise<HeldLock> {
  return acquireLock(
    path.join(gitDir, 'ralphtool-worktree.lock'),
    change,
    (h) =>
      `ralphtool is already running ${h.change} in this work tree (pid ${h.pid} on ${h.host}, since ${h.since}): two runs cannot share a working tree; wait for it, or run this change with --worktree`,
  );
}

/**
 * After a crash the agent of the dead ralphtool may still be running (it has its own
 * process group): stop it before its files are reverted under it.
 */
export function killOrphanedAgent(state: RunState): boolean {
  const pgid = state.agentPgid;
  if (pgid === null || state.host !== hostname() || !groupAlive(pgid)) return false;
  // Pids are reused: kill only a group that still belongs to the recorded agent.
  if (state.agentIdentity === null || !groupIsRecordedAgent(pgid, state.agentIdentity)) {
    return false;
  }
  signalGroup(pgid, 'SIGKILL');
  return true;
}

/** Resume and finish only work on a run that is not finished. */
export function assertResumable(state: RunState, command: 'resume' | 'finish'): void {
  if (state.status === 'finished') {
    throw new UsageError(
      keptWorkAdvice(state) ??
        `the run of ${state.change} is already finished (${state.choice ?? 'ended'}): nothing to ${command}; start a new one with \`ralphtool run ${state.change}\``,
    );
  }
}

/**
 * The group is the recorded agent's when its leader is that very process, or, once the
 * leader has exited, when its members started after it in the same boot (its children).
 */
function groupIsRecordedAgent(pgid: number, recorded: string): boolean {
  const leader = processIdentity(pgid);
  if (leader !== null) return leader === recorded;
  const [boot, startText] = recorded.split(':');
  const start = Number(startText);
  if (boot === undefined || !Number.isFinite(start)) return false;
  return processesInGroup(pgid).some((pid) => {
    const identity = processIdentity(pid);
    if (identity === null) return false;
    const [memberBoot, memberStart] = identity.split(':');
    return memberBoot === boot && Number(memberStart) >= start;
  });
}

/**
 * The run folder under git's directory, or one line saying why the machine refused it. Node's
 * recursive mkdir reports a read-only file system as ENOENT: the nearest folder that exists is
 * asked whether it can be written, which names the real cause (EROFS, EACCES).
 */
async function makeRunFolder(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true });
  } catch (error) {
    let cause: unknown = error;
    let existing = path.dirname(dir);
    while (!existsSync(existing) && path.dirname(existing) !== existing) {
      existing = path.dirname(existing);
    }
    try {
      await access(existing, constants.W_OK);
    } catch (denied) {
      cause = denied;
    }
    throw new RuntimeError(`cannot create ralphtool's folder ${dir}: ${userMessageOf(cause)}`);
  }
}
