import { existsSync } from 'node:fs';
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { countStories } from '../../core/change.js';
import { isValidChangeName } from '../../core/change-name.js';
import { git } from '../../git/git.js';
import type { RepoLocation } from '../../git/repo.js';
import { parseTasks } from '../../openspec/tasks.js';
import { readLock } from '../lock.js';
import {
  isKeptIncomplete,
  openQuestion,
  readRunState,
  runPaths,
  runsRoot,
  type RunState,
  unreadableWayOut,
} from '../../checkpoint/index.js';
import { blockedNext } from '../../core/question.js';
import { keptIncompleteNext } from '../../core/run-mark.js';
import { messageOf } from '../../core/error-details.js';
import { runPlace } from './status-ways-out.js';
import { limitNext, recordedBudget } from './status-limits.js';
import { remoteSaid } from './status-remote.js';
import { orphanedRun } from './status-orphan.js';
import { accountOf, type StatusAccount } from './status-account.js';
import type { Budget } from '../../core/budget.js';
import { mergeBlocks, type SandboxBlock } from '../../core/sandbox-blocks.js';

export type RunCondition = 'running' | 'interrupted' | 'finished' | 'unreadable';

/** One recorded run as `ralphtool status` shows it. */
export interface RunStatus {
  change: string;
  state: RunCondition;
  /** The live ralphtool's pid when running. */
  pid: number | null;
  outcome: RunState['outcome'];
  choice: RunState['choice'];
  branch: string | null;
  originalBranch: string | null;
  stories: { done: number; total: number | null };
  currentStory: string | null;
  currentAttempt: number | null;
  costUsd: number;
  /** The run's cost budgets (`--max-cost`, `--max-story-cost`) when it has any, else null. */
  budget?: Budget | null;
  startedAt: string | null;
  updatedAt: string | null;
  /** The work tree the run belongs to, when it is not the one `status` was asked in. */
  worktree?: string | null;
  /**
   * A run in a worktree of its own (`run --worktree`): that worktree, whether its folder is
   * missing (`resume`/`finish` recreate it from the branch), and the user's work tree it came
   * from (the user's branch is `originalBranch`). Null for a run in the user's work tree.
   */
  home?: { worktree: string; missing: boolean; root: string } | null;
  /**
   * `--resolve-conflicts`: the story bringing the run's branch onto the user's work tree, and
   * the files that collided; null when none is under way.
   */
  resolve?: { storyId: string; files: string[] } | null;
  /** The question a blocked run waits on (asked, not answered yet). */
  question?: { storyId: string; text: string } | null;
  /**
   * The usage-limit wait the run records: going on (running), or cut short by a crash (a
   * `resume` waits out the rest); null when none.
   */
  wait?: NonNullable<RunState['wait']> | null;
  /** The agent (and model) of the attempt running or last run; null before any attempt. */
  agent?: { agent: string; model: string | null } | null;
  /**
   * `--sandbox` (docs/sandbox.md): the hosts and paths its policy adds, and what it refused the
   * run's agents so far (all stories, each counted); null: not sandboxed.
   */
  sandbox?: { allowHosts: string[]; denyRead: string[]; blocked: SandboxBlock[] } | null;
  /**
   * Fallback agents (`--fallback-agent`, in order) and the agents limited until when (only
   * limits not yet over); null for a run without fallback agents or recorded limits.
   */
  fallback?: {
    agents: { agent: string; model: string | null }[];
    limited: { agent: string; until: string; kind: string; resetsAt: string | null }[];
  } | null;
  /**
   * What the remote says of a run that pushes and waits to be continued here (in step, went on
   * without this machine, its branch moved, unreachable); null otherwise.
   */
  remote?: { remote: string; said: string } | null;
  /** The usage window of the run's account, when one is known (status-account.ts). */
  account?: StatusAccount | null;
  /** The one command to continue or end it. */
  next: string;
  /** Why the run could not be read, when unreadable. */
  error: string | null;
}

/** Every run recorded under the repository's git directory, sorted by change name. */
export async function collectRunStatuses(
  repo: RepoLocation,
  specRootFromRepo: string | null,
  timeoutMs: number,
  /** The environment git starts from: the command's. */
  baseEnv: NodeJS.ProcessEnv,
): Promise<RunStatus[]> {
  let names: string[];
  try {
    names = (await readdir(runsRoot(repo.gitCommonDir), { withFileTypes: true }))
      .filter((e) => e.isDirectory() && isValidChangeName(e.name))
      .map((e) => e.name)
      .sort();
  } catch {
    return [];
  }
  const statuses: RunStatus[] = [];
  for (const change of names) {
    const status = await statusOf(repo, change, specRootFromRepo, timeoutMs, baseEnv);
    if (status) statuses.push(status);
  }
  return statuses;
}

/**
 * `status` only: the runs recorded, and a run branch HEAD is on whose record is gone
 * (status-orphan.ts), said as an unreadable run with its way back.
 */
export async function statusesWithOrphan(
  repo: RepoLocation,
  specRootFromRepo: string | null,
  timeoutMs: number,
  baseEnv: NodeJS.ProcessEnv,
): Promise<RunStatus[]> {
  const statuses = await collectRunStatuses(repo, specRootFromRepo, timeoutMs, baseEnv);
  const recorded = statuses.map((s) => s.change);
  const orphan = await orphanedRun(repo, recorded, timeoutMs, baseEnv);
  if (orphan === null) return statuses;
  const { branch, originalBranch, next, error } = orphan;
  return [...statuses, { ...unreadable(orphan.change, '', error), branch, originalBranch, next }];
}

async function statusOf(
  repo: RepoLocation,
  change: string,
  specRootFromRepo: string | null,
  timeoutMs: number,
  baseEnv: NodeJS.ProcessEnv,
): Promise<RunStatus | null> {
  const paths = runPaths(repo.gitCommonDir, change);
  let state: RunState | null;
  try {
    state = await readRunState(paths.state);
  } catch (error) {
    return unreadable(change, paths.dir, messageOf(error));
  }
  if (state === null) return null;
  const lock = await readLock(paths.lock).catch(() => ({ kind: 'free' as const }));
  const running = state.status === 'active' && lock.kind === 'held';
  const condition: RunCondition =
    state.status === 'finished' ? 'finished' : running ? 'running' : 'interrupted';
  const done = Object.values(state.stories).filter((s) => s.completed).length;
  const total = await storyTotal(repo, state, specRootFromRepo, timeoutMs, baseEnv);
  const place = await runPlace(repo, state, condition === 'interrupted', timeoutMs, baseEnv);
  const question = condition === 'interrupted' ? openQuestion(state) : null;
  // The remote is the truth for a run that pushes: a copy behind it is followed, not resumed.
  const remote = condition === 'interrupted' ? await remoteSaid(repo, state, baseEnv) : null;
  return {
    change,
    state: condition,
    pid: running && lock.kind === 'held' ? lock.holder.pid : null,
    outcome: state.outcome,
    choice: state.choice,
    branch: state.branch,
    originalBranch:
      state.originalBranch.kind === 'detached'
        ? state.originalBranch.sha.slice(0, 12)
        : state.originalBranch.name,
    stories: { done, total },
    currentStory: state.currentStory,
    currentAttempt: state.currentAttempt,
    costUsd: state.costUsd,
    budget: recordedBudget(state),
    startedAt: state.startedAt,
    updatedAt: state.updatedAt,
    worktree: place.here || state.home ? null : place.root,
    home: homeOf(state),
    question: question ? { storyId: question.storyId, text: question.text } : null,
    resolve:
      state.status === 'active' && state.resolve
        ? { storyId: state.resolve.storyId, files: [...state.resolve.files] }
        : null,
    wait: state.status === 'active' ? (state.wait ?? null) : null,
    agent: state.attemptAgent ?? null,
    sandbox: state.intent?.sandbox
      ? {
          allowHosts: state.intent.allowHosts,
          denyRead: state.intent.sandboxDenyRead,
          blocked: Object.values(state.stories).reduce<SandboxBlock[]>(
            (all, p) => mergeBlocks(all, p.sandboxBlocks ?? []),
            [],
          ),
        }
      : null,
    fallback: fallbackOf(state),
    remote: remote === null ? null : { remote: remote.remote, said: remote.said },
    account: await accountOf(state, baseEnv, Date.now()),
    next:
      place.blocked ??
      (remote?.next != null ? `\`${remote.next}\`` : null) ??
      nextCommand(
        change,
        condition,
        state,
        running && lock.kind === 'held' ? lock.holder.pid : null,
        place.command,
      ),
    error: null,
  };
}

function nextCommand(
  change: string,
  condition: RunCondition,
  state: RunState,
  pid: number | null,
  /** `ralphtool`, or `ralphtool -C <root>` for a run of another work tree. */
  rt: string,
): string {
  const limited = limitNext(change, state, rt);
  switch (condition) {
    case 'running':
      return `running as pid ${String(pid)}: stop it with Ctrl-C in its terminal (or \`kill ${String(pid)}\`)`;
    case 'interrupted':
      if (openQuestion(state) !== null) return blockedNext(change, rt);
      // A spent budget or --max-duration: the resume that can carry on.
      if (limited !== null) return limited;
      if (state.outcome === 'limited' && state.choice !== null) {
        return `stopped at a usage limit: \`${rt} resume ${change}\` once it has reset (or end it: ${rt} finish ${change} --cleanup|--keep)`;
      }
      if (isKeptIncomplete(state)) return keptIncompleteNext(change);
      if (state.step?.op === 'cleanup') {
        return `a cleanup is under way: \`${rt} finish ${change} --cleanup\` completes it`;
      }
      if (state.outcome !== null && state.outcome !== 'error') {
        // The loop ended and the completion question went unanswered.
        return `${rt} finish ${change} --cleanup|--keep   (or carry on: ${rt} resume ${change})`;
      }
      return `${rt} resume ${change}   (or end it: ${rt} finish ${change} --cleanup|--keep)`;
    case 'finished':
      return state.choice === 'keep'
        ? `work is on ${state.branch}; \`${rt} finish ${change} --prune\` deletes its attempt refs`
        : `\`${rt} finish ${change} --prune\` deletes its attempt refs`;
    case 'unreadable':
      return unreadableWayOut(change);
  }
}

function homeOf(state: RunState): NonNullable<RunStatus['home']> | null {
  const worktree = state.worktree?.root;
  if (!state.home || worktree === undefined) return null;
  return { worktree, missing: !existsSync(worktree), root: state.home.root };
}

/** Stories in tasks.md as of the run's checkpoint (what the loop sees), when that can be read. */
async function storyTotal(
  repo: RepoLocation,
  state: RunState,
  specRootFromRepo: string | null,
  timeoutMs: number,
  baseEnv: NodeJS.ProcessEnv,
): Promise<number | null> {
  if (specRootFromRepo === null || state.checkpointSha === null) return null;
  const file = path.posix.join(specRootFromRepo, 'openspec', 'changes', state.change, 'tasks.md');
  const shown = await git(
    { cwd: repo.root, timeoutMs, baseEnv },
    ['show', `${state.checkpointSha}:${file}`],
    {
      allowFailure: true,
    },
  ).catch(() => null);
  if (!shown || shown.exitCode !== 0) return null;
  return countStories(parseTasks(shown.stdout)).total;
}

function unreadable(change: string, folder: string, message: string): RunStatus {
  return {
    change,
    state: 'unreadable',
    pid: null,
    outcome: null,
    choice: null,
    branch: null,
    originalBranch: null,
    stories: { done: 0, total: null },
    currentStory: null,
    currentAttempt: null,
    costUsd: 0,
    startedAt: null,
    updatedAt: null,
    worktree: null,
    next: unreadableWayOut(change, folder),
    error: message,
  };
}

/** The fallback agents and the limits still in force (docs/contract.md, "Fallback agents"). */
function fallbackOf(state: RunState): NonNullable<RunStatus['fallback']> | null {
  const record = state.fallback;
  if (record === undefined) return null;
  const now = Date.now();
  const limited = Object.entries(record.limited)
    .filter(([, l]) => state.status === 'active' && Date.parse(l.until) > now)
    .map(([agent, l]) => ({ agent, until: l.until, kind: l.kind, resetsAt: l.resetsAt }));
  return { agents: record.agents.map((a) => ({ ...a })), limited };
}
