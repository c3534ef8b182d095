import { RuntimeError, UsageError } from '../../core/errors.js';
import { ralphBranch, type RunState } from '../../checkpoint/index.js';
import type { GitContext } from '../../git/git.js';
import { branchSha, isAncestor, resolveCommit } from '../../git/repo.js';
import { recordRef } from '../../remote/names.js';
import {
  readPushedTip,
  readRemoteRunView,
  rememberPushedTip,
  type RemoteRunView,
} from '../../remote/remote-view.js';
import { saveRemoteBranch } from '../../remote/set-aside.js';

// The remote is the truth for a run that pushes (docs/contract.md, "The remote is the truth"):
// before a run acts, what the remote holds of it is read, once the claim is this machine's (so
// it cannot change under the reading). A run never redoes work the remote records past this
// machine's copy, and never pushes over a commit it did not put there without saving it here.

export interface AgreeRequest {
  ctx: GitContext;
  remote: string;
  change: string;
  /** `run` (a new run) or a continuation of this machine's recorded run (`resume`, `finish`). */
  mode: 'start' | 'continue';
  /** `run --force`: a run recorded on the remote is started over (its branch saved here). */
  force: boolean;
  notice: (message: string) => void;
}

/**
 * Checks the remote agrees with this machine's copy of the run and sets the tip the run's next
 * push moves the remote branch from. Throws (exit 1 or 2, nothing changed) when the remote went
 * on without this machine, was finished elsewhere, or holds a branch someone else moved.
 */
export async function agreeWithRemote(req: AgreeRequest): Promise<void> {
  const { ctx, remote, change } = req;
  const view = await readRemoteRunView(ctx, remote, change);
  if (req.mode === 'continue') {
    if (await copyIsBehind(ctx, change, view)) throw wentOnElsewhere(remote, change, view);
    const pushed = await readPushedTip(ctx, remote, change);
    if (pushed !== null && view.branch !== null && view.branch !== pushed) {
      throw await branchMovedError(ctx, remote, change, pushed, view.branch);
    }
    if (pushed !== null && view.branch === null) {
      req.notice(
        `${ralphBranch(change)} is gone from ${remote} (deleted there): this run pushes it again`,
      );
    }
    // This machine's own record there and no memory of a tip (a run pushed by an older ralphtool):
    // the remote's branch is the run's. Without a record of its own there, a branch of that name
    // came from elsewhere: saved here before the run's pushes replace it.
    if (pushed === null && view.branch !== null && view.record === null) {
      await keepTheirs(req, view.branch, 'a branch this run did not push');
    }
    if (pushed === null || view.branch === null) {
      await rememberPushedTip(ctx, remote, change, view.branch);
    }
    return;
  }
  const recorded = view.record?.state ?? null;
  const unfinished = view.record !== null && (recorded === null || recorded.status === 'active');
  const keptThere = recorded?.status === 'finished' && recorded.choice === 'keep';
  if (!req.force && (unfinished || (keptThere && view.branch !== null))) {
    throw startOverRefused(remote, change, view);
  }
  if (view.branch !== null) {
    await keepTheirs(
      req,
      view.branch,
      recorded === null ? 'a branch of that name' : `the run ${describe(view)}`,
    );
  }
  await rememberPushedTip(ctx, remote, change, view.branch);
}

/** The remote's branch saved here (unless this repository's branch already holds it), and said. */
async function keepTheirs(req: AgreeRequest, tip: string, what: string): Promise<void> {
  const { ctx, remote, change } = req;
  const local = await branchSha(ctx, ralphBranch(change));
  const known = (await resolveCommit(ctx, tip)) !== null;
  if (known && local !== null && (await isAncestor(ctx, tip, local))) return;
  const saved = await saveRemoteBranch(ctx, remote, change);
  if (saved === null) return;
  req.notice(
    `${remote}'s ${ralphBranch(change)} at ${tip.slice(0, 12)} (${what}) is saved here as ${saved}: this run's pushes replace it there`,
  );
}

/** Who wrote the remote's record, when, and how far the run had got. */
function describe(view: RemoteRunView): string {
  const record = view.record;
  if (record === null) return 'recorded nowhere';
  const state = record.state;
  const by =
    record.about === null
      ? 'an unreadable record'
      : `${record.about.host} at ${record.about.writtenAt}`;
  if (state === null) return `recorded by ${by} (in a format this ralphtool does not read)`;
  const done = Object.values(state.stories).filter((s) => s.completed).length;
  const where =
    state.checkpointSha === null
      ? 'before its first checkpoint'
      : `checkpoint ${state.checkpointSha.slice(0, 12)}`;
  const status =
    state.status === 'finished' ? `finished (${state.choice ?? 'ended'})` : 'not finished';
  return `recorded by ${by}: ${status}, ${done} ${done === 1 ? 'story' : 'stories'} done, ${where}`;
}

/** What the remote says of a copy behind it, and the one command that follows the remote. */
export function behindAdvice(
  remote: string,
  change: string,
  view: RemoteRunView,
): { said: string; command: string } {
  const state = view.record?.state ?? null;
  if (state?.status === 'finished') {
    const choice = state.choice === 'cleanup' ? 'cleanup' : 'keep';
    return {
      said: `the run of ${change} on ${remote} went on without this machine and ended there (${describe(view)})`,
      command: `ralphtool finish ${change} --from ${remote} --${choice}`,
    };
  }
  // A run parked on a question there goes on with its answer.
  const answer = state?.question != null && state.question.answer === null ? ' --answer "…"' : '';
  return {
    said: `the run of ${change} on ${remote} went on without this machine (${describe(view)})`,
    command: `ralphtool resume ${change} --from ${remote}${answer}`,
  };
}

/**
 * Whether this machine's copy of the run is behind the remote's record: the remote's record is
 * not in the history of this machine's (another machine wrote it).
 */
export async function copyIsBehind(
  ctx: GitContext,
  change: string,
  view: RemoteRunView,
): Promise<boolean> {
  if (view.record === null) return false;
  const localRecord = await resolveCommit(ctx, recordRef(change));
  return localRecord === null || !(await isAncestor(ctx, view.record.sha, localRecord));
}

function wentOnElsewhere(remote: string, change: string, view: RemoteRunView): RuntimeError {
  const { said, command } = behindAdvice(remote, change, view);
  const how =
    view.record?.state?.status === 'finished'
      ? 'ends it here the same way'
      : "continues from the remote's record";
  return new RuntimeError(
    `${said}: this machine's copy is behind and would redo that work. \`${command}\` ${how} (this machine's copy is set aside under refs/ralphtool/${change}/forced/, nothing is lost)`,
  );
}

/** The refusal when the remote's branch is not where this run last pushed it (theirs saved here). */
export async function branchMovedError(
  ctx: GitContext,
  remote: string,
  change: string,
  pushed: string,
  theirs: string,
  /** Said while a run goes: it stopped (or, at its end, finished here without this last push). */
  during: { stopped: boolean; finished: boolean } = { stopped: false, finished: false },
): Promise<RuntimeError> {
  const branch = ralphBranch(change);
  const saved = await saveRemoteBranch(ctx, remote, change);
  const kept = saved === null ? '' : `, saved here as ${saved}`;
  const lease = `--force-with-lease=refs/heads/${branch}:${theirs}`;
  const seen = `${branch} on ${remote} is at ${theirs.slice(0, 12)}${kept}, not at ${pushed.slice(0, 12)} where this run last pushed it: someone else pushed to it, and this run does not push over their commit`;
  const see = `see what they pushed (\`git log ${pushed.slice(0, 12)}..${theirs.slice(0, 12)}\`)`;
  if (during.finished) {
    return new RuntimeError(
      `${seen}; the run finished here and its end is not on ${remote}. ${see}; to put the run's end there, \`git push ${remote} refs/heads/${branch} ${lease}\``,
    );
  }
  const stopped = during.stopped ? ' (this machine stopped the run and pushes nothing more)' : '';
  return new RuntimeError(
    `${seen}${stopped}. ${see}; to go on here, put the branch back (\`git push ${remote} ${pushed}:refs/heads/${branch} ${lease}\`), then \`ralphtool resume ${change}\``,
  );
}

function startOverRefused(remote: string, change: string, view: RemoteRunView): UsageError {
  const state: RunState | null = view.record?.state ?? null;
  const kept = state?.status === 'finished';
  return new UsageError(
    `a run of ${change} is on ${remote} (${describe(view)}): ${kept ? `its work is on ${remote}'s ${ralphBranch(change)}, not merged` : `\`ralphtool resume ${change} --from ${remote}\` continues it here`}; \`ralphtool run ${change} --push ${remote} --force\` with your run options starts over (${remote}'s branch saved here under refs/ralphtool/${change}/forced/ first)`,
  );
}
