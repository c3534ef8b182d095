import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { RuntimeError, UsageError } from '../core/errors.js';
import {
  attemptRef,
  attemptRefPrefix,
  engineContext,
  notInRepo,
  parseRunState,
  progressRef,
  readRunState,
  progressSubject,
  ralphBranch,
  runPaths,
  type RunState,
  writeRunState,
} from '../checkpoint/index.js';
import { git, gitOut, type GitContext } from '../git/git.js';
import { fetchRefs, remoteContext } from '../git/remote.js';
import {
  branchSha,
  isAncestor,
  locateRepo,
  resolveCommit,
  type RepoLocation,
} from '../git/repo.js';
import type { CompletionChoice } from '../core/events.js';
import { followRemoteEnd } from './follow-end.js';
import { recordRef } from './names.js';
import { readRemoteRunView, rememberPushedTip } from './remote-view.js';
import { assertCanSetAside, keepLocalBranch, setAsideLocalCopy } from './set-aside.js';
import { RECORD_FILES, RECORD_FORMAT, readRecordFile } from './record.js';

// `resume --from <remote>` and `finish --from <remote>` (docs/contract.md, "Continue anywhere"):
// a run recorded on the remote becomes this machine's run: its branch, saved attempts and record
// fetched, its run folder rebuilt from the record for this work tree, the work tree switched to
// the branch at the recorded checkpoint. A copy of the run this machine already has gives way
// when the remote went on past it: it is set aside (set-aside.ts), never dropped. Every refusal
// comes before anything changes.

export interface FetchRunRequest {
  /** A directory of this machine's work tree. */
  cwd: string;
  remote: string;
  change: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  /** What the fetched run is for: a refusal's words differ. */
  command: 'resume' | 'finish';
  /** `finish --from`: how it ends the run (a run that ended on the remote must have ended so). */
  choice?: CompletionChoice;
}

/** The run as rebuilt here: its state, and notes for the user. */
export interface FetchedRun {
  state: RunState;
  notes: string[];
  /** The remote holds a progress save (of the other machine's attempt): the next push drops it. */
  remoteProgress: boolean;
  /** The run had ended on the remote and this repository followed (`finish --from`): no run here. */
  ended: boolean;
}

export async function fetchRunFrom(req: FetchRunRequest): Promise<FetchedRun> {
  const engine = { timeoutMs: req.timeoutMs, baseEnv: req.env };
  const repo = await locateRepo({ cwd: req.cwd, ...engine });
  if (repo === null) throw notInRepo(req.cwd);
  const ctx = remoteContext(engineContext(repo, engine), Math.max(req.timeoutMs, 120_000));
  const paths = runPaths(repo.gitCommonDir, req.change);
  const branch = ralphBranch(req.change);
  const record = recordRef(req.change);
  const view = await readRemoteRunView(ctx, req.remote, req.change);
  if (view.record === null) {
    throw new RuntimeError(
      `no run of ${req.change} is recorded on ${req.remote} (no ${record}): \`ralphtool status --remote ${req.remote}\` lists the runs there`,
    );
  }
  const format = view.record.about?.format;
  if (format !== RECORD_FORMAT) {
    throw new RuntimeError(
      `the record of ${req.change} on ${req.remote} is in a format this ralphtool does not read (${String(format)}): upgrade ralphtool`,
    );
  }
  // This machine's copy of the run gives way only when the remote went on past it.
  const local = existsSync(paths.state) ? await readRunState(paths.state) : null;
  if (local !== null) {
    const localRecord = await resolveCommit(ctx, record);
    if (localRecord !== null && (await isAncestor(ctx, view.record.sha, localRecord))) {
      throw new UsageError(
        `a run of ${req.change} is already recorded in this repository, as far as ${req.remote}'s or further: \`ralphtool ${req.command} ${req.change}\` (without --from) carries it on here`,
      );
    }
    await assertCanSetAside(ctx, req.change, req.command);
  } else {
    await assertCleanTree(ctx, req.change);
  }
  const there = view.record.state;
  const endedThere = there?.status === 'finished' ? (there.choice ?? 'keep') : null;
  if (endedThere !== null && (local === null || req.command !== 'finish')) {
    throw new UsageError(
      `the run of ${req.change} recorded on ${req.remote} is finished (${endedThere}): nothing to ${req.command}`,
    );
  }
  if (endedThere !== null && req.choice !== endedThere) {
    throw new UsageError(
      `the run of ${req.change} ended on ${req.remote} with a ${endedThere}: \`ralphtool finish ${req.change} --from ${req.remote} --${endedThere}\` ends this machine's copy the same way`,
    );
  }
  if (view.branch === null && endedThere === null) {
    throw new RuntimeError(
      `${req.remote} has the record of ${req.change} but not its branch ${branch}: the run there ended with a cleanup, or the branch was deleted; nothing to continue`,
    );
  }
  // Everything above refuses before anything changes; from here on this machine follows the remote.
  const notes =
    local !== null
      ? await setAsideLocalCopy(ctx, req.change, local, paths)
      : await keepLocalBranch(ctx, req.change, view.branch);
  const attempts = `${attemptRefPrefix(req.change)}*`;
  const progress = progressRef(req.change);
  const withProgress = view.progress !== null;
  const fetched = await fetchRefs(ctx, req.remote, [
    ...(endedThere === 'cleanup' || view.branch === null
      ? []
      : [`+refs/heads/${branch}:refs/heads/${branch}`]),
    `+${attempts}:${attempts}`,
    `+${record}:${record}`,
    ...(withProgress ? [`+${progress}:${progress}`] : []),
  ]);
  if (!fetched.ok) {
    throw new RuntimeError(
      `could not fetch the run of ${req.change} from ${req.remote}: ${fetched.error}`,
    );
  }
  await rememberPushedTip(ctx, req.remote, req.change, view.branch);
  if (endedThere !== null && local !== null && there !== null) {
    const about = view.record.about;
    const line = await followRemoteEnd(
      ctx,
      {
        remote: req.remote,
        change: req.change,
        choice: endedThere,
        host: about?.host ?? there.host,
        at: about?.writtenAt ?? there.updatedAt,
      },
      local,
    );
    return { state: there, notes: [...notes, line], remoteProgress: false, ended: true };
  }
  const built = await rebuild(ctx, repo, req, branch);
  return {
    state: built.state,
    notes: [...notes, ...built.notes],
    remoteProgress: withProgress,
    ended: false,
  };
}

/** The run folder written from the record, for this machine and work tree. */
async function rebuild(
  ctx: GitContext,
  repo: RepoLocation,
  req: FetchRunRequest,
  branch: string,
): Promise<Omit<FetchedRun, 'remoteProgress' | 'ended'>> {
  const record = recordRef(req.change);
  const text = await readRecordFile(ctx, record, RECORD_FILES.state);
  if (text === null)
    throw new RuntimeError(`the record of ${req.change} on ${req.remote} has no state.json`);
  const recorded = parseRunState(text, `${req.remote}:${record}:${RECORD_FILES.state}`);
  const tip = await gitOut(ctx, ['rev-parse', `refs/heads/${branch}`]);
  if (recorded.checkpointSha === null || recorded.baseSha === null) {
    throw new RuntimeError(
      `the run of ${req.change} on ${req.remote} was recorded before its start ended: start it again with \`ralphtool run ${req.change} --push ${req.remote} --force\``,
    );
  }
  if (recorded.checkpointSha !== tip) {
    throw new RuntimeError(
      `the record of ${req.change} on ${req.remote} names checkpoint ${recorded.checkpointSha.slice(0, 12)} but its branch is at ${tip.slice(0, 12)}: the branch was moved by hand; put it back (\`git push ${req.remote} ${recorded.checkpointSha}:refs/heads/${branch} --force\`) and try again`,
    );
  }
  const notes: string[] = [];
  const original = recorded.originalBranch;
  if (original.kind === 'branch' && (await branchSha(ctx, original.name)) === null) {
    // The cleanup goes back there: made where the run started from.
    const at = recorded.originalSha ?? recorded.baseSha;
    await git(ctx, ['branch', '--', original.name, at], {
      context: `could not create ${original.name}`,
    });
    notes.push(`created ${original.name} at ${at.slice(0, 12)}, the commit the run started from`);
  }
  // Recorded as this machine's run in this work tree; what belonged to the other machine (its
  // processes, its worktree) is left behind. The attempt that was going on there counts (it was
  // counted when it began) and its story starts over from the checkpoint.
  const state: RunState = {
    ...recorded,
    worktree: { root: repo.root, gitDir: repo.gitDir },
    host: hostname(),
    pid: null,
    agentPgid: null,
    agentIdentity: null,
    step: null,
    remote: { push: req.remote },
  };
  delete state.home;
  const saved = await keepInterruptedAttempt(ctx, req.change, recorded);
  if (saved !== null) {
    notes.push(`the attempt ${recorded.host} was making when it stopped is saved as ${saved}`);
  }
  const paths = runPaths(repo.gitCommonDir, req.change);
  await mkdir(paths.dir, { recursive: true });
  const learnings = await readRecordFile(ctx, record, RECORD_FILES.learnings);
  if (learnings !== null) await writeFile(paths.learnings, learnings);
  await git(ctx, ['switch', '--quiet', '--', branch], { context: `could not switch to ${branch}` });
  await writeRunState(paths.state, state);
  notes.push(
    `fetched the run of ${req.change} from ${req.remote} (recorded on ${recorded.host}, ${recorded.updatedAt}); it continues in this work tree`,
  );
  return { state, notes };
}

/** A switch to the run's branch must not carry or lose anything of the user's. */
async function assertCleanTree(ctx: GitContext, change: string): Promise<void> {
  const status = await gitOut(ctx, ['status', '--porcelain', '--untracked-files=normal']);
  if (status !== '') {
    const first = status.split('\n')[0]?.slice(3) ?? '';
    throw new UsageError(
      `this work tree has uncommitted changes (${first}${status.includes('\n') ? ', …' : ''}): commit or stash them before fetching the run of ${change}, or use a fresh clone`,
    );
  }
}

/**
 * The other machine's attempt that was going on when it stopped, as its last progress save
 * showed it: kept as that attempt's ref (the attempt counts, as it did there). Returns the ref.
 */
async function keepInterruptedAttempt(
  ctx: GitContext,
  change: string,
  recorded: RunState,
): Promise<string | null> {
  const progress = progressRef(change);
  const found = await git(ctx, ['log', '-1', '--format=%H %s', progress, '--'], {
    allowFailure: true,
  });
  if (found.exitCode !== 0 || found.stdout.trim() === '') return null;
  const [sha = '', ...words] = found.stdout.trim().split(' ');
  await git(ctx, ['update-ref', '-d', progress], { allowFailure: true });
  const { currentStory, currentAttempt } = recorded;
  if (currentStory === null || currentAttempt === null) return null;
  if (words.join(' ') !== progressSubject(currentStory, currentAttempt)) return null;
  const ref = attemptRef(change, currentStory, currentAttempt);
  await git(ctx, ['update-ref', ref, sha], { context: 'could not keep the interrupted attempt' });
  return ref;
}
