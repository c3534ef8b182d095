import { existsSync } from 'node:fs';
import { RuntimeError, UsageError } from '../../core/errors.js';
import { chooseAll, type ChangeFacts, type WorkChoice } from '../../core/work-left.js';
import {
  engineContext,
  notInRepo,
  runPaths,
  type GitContext,
  type RepoLocation,
} from '../../checkpoint/index.js';
import {
  fetchBranch,
  remoteDefaultBranch,
  switchAndFastForward,
} from '../../git/default-branch.js';
import { remoteContext } from '../../git/remote.js';
import { isAncestor, locateRepo, resolveCommit } from '../../git/repo.js';
import { statusEntries } from '../../git/status.js';
import { listChanges } from '../../openspec/changes.js';
import { findOpenSpecRoot } from '../../openspec/root.js';
import { fetchedRef, recordRef } from '../../remote/names.js';
import { listRemoteRuns, type RemoteRun } from '../../remote/remote-runs.js';
import { unreachableRemote } from '../../remote/remote-view.js';
import { claimHolder, takeable } from '../remote/remote-claim.js';
import { remoteTimeoutMs } from '../remote/remote-session.js';

/** Where a worker works: its repository and the remote. */
export interface WorkerPlace {
  cwd: string;
  remote: string;
  timeoutMs: number;
  claimTtlMs: number;
  env: NodeJS.ProcessEnv;
}

/** One look at the remote: its default branch, and what to do with each change. */
export interface Survey {
  /** The default branch the work tree was brought onto; null for a look that changes nothing. */
  defaultBranch: string | null;
  choices: WorkChoice[];
  /** The remote's record commit of each change that has one (a race is told by its moving). */
  recordShas: Map<string, string | null>;
}

/**
 * Brings this work tree onto the remote's default branch (fetched, fast-forwarded), then judges
 * every change of that branch and every run the remote records (core/work-left.ts). `tried`: the
 * changes this worker took up already. Refuses (exit 2) a work tree with changes of its own.
 * `lookOnly` (`worker --list`): the work tree's changes as they are, nothing switched.
 */
export async function surveyRemote(
  place: WorkerPlace,
  tried: ReadonlySet<string>,
  now: Date,
  lookOnly = false,
): Promise<Survey> {
  const repo = await locateRepo({ cwd: place.cwd, timeoutMs: place.timeoutMs, baseEnv: place.env });
  if (repo === null) throw notInRepo(place.cwd);
  const engine = engineContext(repo, { timeoutMs: place.timeoutMs, baseEnv: place.env });
  const ctx = remoteContext(engine, remoteTimeoutMs(place.timeoutMs));
  const defaultBranch = lookOnly ? null : await onDefaultBranch(ctx, place.remote);
  const specRoot = findOpenSpecRoot(place.cwd);
  const here = await listChanges(specRoot);
  const runs = new Map<string, RemoteRun>(
    (await listRemoteRuns(ctx, place.remote)).map((run) => [run.change, run]),
  );
  const names = [...new Set([...here.map((c) => c.name), ...runs.keys()])];
  const facts: ChangeFacts[] = [];
  for (const change of names) {
    const run = runs.get(change) ?? null;
    const stories = here.find((c) => c.name === change)?.stories ?? null;
    const claim = run?.claim ?? null;
    facts.push({
      change,
      stories,
      record:
        run === null || run.recordSha === null
          ? null
          : run.state === null
            ? 'unreadable'
            : { status: run.state.status, outcome: run.state.outcome },
      claim:
        claim === null
          ? null
          : {
              takeable: takeable(claim, now, place.claimTtlMs) !== null,
              holder: claimHolder(place.remote, change, claim, now),
            },
      localCopyCurrent: await localCopyCurrent(ctx, repo, change, run?.recordSha ?? null),
      triedHere: tried.has(change),
    });
  }
  const recordShas = new Map(names.map((c) => [c, runs.get(c)?.recordSha ?? null]));
  return { defaultBranch, choices: chooseAll(facts, place.remote), recordShas };
}

/**
 * The work tree on the remote's default branch at the remote's tip: every run starts from
 * there, and a change pushed there since the last look is seen. A work tree with changes of its
 * own is refused (exit 2): a worker's clone is the worker's.
 */
async function onDefaultBranch(ctx: GitContext, remote: string): Promise<string> {
  const dirty = await statusEntries(ctx);
  if (dirty.length > 0) {
    throw new UsageError(
      `this work tree has uncommitted changes (${dirty
        .slice(0, 3)
        .map((e) => e.path)
        .join(
          ', ',
        )}${dirty.length > 3 ? ', …' : ''}): a worker works in a clone of its own; commit or stash them, or start the worker in a fresh clone`,
    );
  }
  const named = await remoteDefaultBranch(ctx, remote);
  if ('error' in named) throw unreachableRemote(remote, named.error);
  if (named.branch === null) {
    throw new RuntimeError(
      `${remote} names no default branch (its HEAD): push one first (\`git push ${remote} HEAD\`)`,
    );
  }
  const into = fetchedRef(remote, `refs/heads/${named.branch}`);
  const fetched = await fetchBranch(ctx, remote, named.branch, into);
  if ('error' in fetched) throw unreachableRemote(remote, fetched.error);
  const refused = await switchAndFastForward(ctx, named.branch, fetched.sha);
  if (refused !== null) {
    throw new RuntimeError(
      `could not bring this work tree onto ${remote}'s ${named.branch} (${refused}): a worker starts every change from the remote's default branch; push or drop your commits on ${named.branch}`,
    );
  }
  return named.branch;
}

/** This machine records the run, as far as the remote's record or further. */
async function localCopyCurrent(
  ctx: GitContext,
  repo: RepoLocation,
  change: string,
  remoteRecord: string | null,
): Promise<boolean> {
  if (remoteRecord === null || !existsSync(runPaths(repo.gitCommonDir, change).state)) return false;
  const local = await resolveCommit(ctx, recordRef(change));
  return local !== null && (await isAncestor(ctx, remoteRecord, local));
}
