import { RuntimeError } from '../core/errors.js';
import { parseRunState, type RunState } from '../checkpoint/index.js';
import { git, type GitContext } from '../git/git.js';
import { fetchRefs, listRemoteRefs } from '../git/remote.js';
import { CLAIM_FILE, type ClaimInfo } from './claim.js';
import { fetchedRef } from './names.js';
import { RECORD_FILES } from './record.js';
import { unreachableRemote } from './remote-view.js';

/** One run recorded on a remote (`status --remote`). */
export interface RemoteRun {
  change: string;
  /** The recorded state; null when the record cannot be read (a newer format, a hand edit). */
  state: RunState | null;
  /** The record's commit on the remote; null when only a claim is there. */
  recordSha: string | null;
  /** Who holds the change now; null when nobody does. `info` null: a claim that cannot be read. */
  claim: { sha: string; info: ClaimInfo | null } | null;
}

const RECORDS = /^refs\/ralphtool\/([^/]+)\/record$/;
const CLAIMS = /^refs\/ralphtool\/([^/]+)\/claim$/;

/**
 * The runs recorded on a remote and their claims, read with one `ls-remote` and one `fetch` (into
 * `refs/ralphtool-remote/<remote>/…`, never the run's own refs). Throws (exit 1) when the remote
 * cannot be read.
 */
export async function listRemoteRuns(ctx: GitContext, remote: string): Promise<RemoteRun[]> {
  const { listed, wanted } = await listAndFetch(ctx, remote);
  const changes = new Set<string>();
  for (const ref of wanted) changes.add((RECORDS.exec(ref) ?? CLAIMS.exec(ref))?.[1] ?? '');
  const runs: RemoteRun[] = [];
  for (const change of [...changes].filter((c) => c !== '').sort()) {
    const record = `refs/ralphtool/${change}/record`;
    const claim = `refs/ralphtool/${change}/claim`;
    const stateText = listed.refs.has(record)
      ? await blob(ctx, `${fetchedRef(remote, record)}:${RECORD_FILES.state}`)
      : null;
    const claimSha = listed.refs.get(claim);
    const claimText =
      claimSha === undefined ? null : await blob(ctx, `${fetchedRef(remote, claim)}:${CLAIM_FILE}`);
    runs.push({
      change,
      state: stateText === null ? null : safeState(stateText, `${remote}:${record}`),
      recordSha: listed.refs.get(record) ?? null,
      claim: claimSha === undefined ? null : { sha: claimSha, info: safeClaim(claimText) },
    });
  }
  return runs;
}

/**
 * How many times the listing and the fetch are made again when a ref listed was gone by the
 * fetch: another machine's run ended (its claim released, its record replaced) between the two.
 */
const LISTINGS = 3;

/** The remote's refs of runs, listed, and the records and claims among them fetched. */
async function listAndFetch(
  ctx: GitContext,
  remote: string,
): Promise<{ listed: { refs: Map<string, string> }; wanted: string[] }> {
  for (let listing = 1; ; listing++) {
    const listed = await listRemoteRefs(ctx, remote, ['refs/ralphtool/*']);
    if ('error' in listed) throw unreachableRemote(remote, listed.error);
    const wanted = [...listed.refs.keys()].filter((ref) => RECORDS.test(ref) || CLAIMS.test(ref));
    if (wanted.length === 0) return { listed, wanted };
    const fetched = await fetchRefs(
      ctx,
      remote,
      wanted.map((ref) => `+${ref}:${fetchedRef(remote, ref)}`),
    );
    if (fetched.ok) return { listed, wanted };
    if (listing >= LISTINGS) {
      throw new RuntimeError(`could not fetch the runs recorded on ${remote}: ${fetched.error}`);
    }
  }
}

async function blob(ctx: GitContext, spec: string): Promise<string | null> {
  const result = await git(ctx, ['cat-file', 'blob', spec], { allowFailure: true });
  return result.exitCode === 0 ? result.stdout : null;
}

function safeState(text: string, where: string): RunState | null {
  try {
    return parseRunState(text, where);
  } catch {
    return null;
  }
}

function safeClaim(text: string | null): ClaimInfo | null {
  if (text === null) return null;
  try {
    const parsed = JSON.parse(text) as Partial<ClaimInfo>;
    return typeof parsed.host === 'string' &&
      typeof parsed.pid === 'number' &&
      typeof parsed.heartbeatAt === 'string'
      ? (parsed as ClaimInfo)
      : null;
  } catch {
    return null;
  }
}
