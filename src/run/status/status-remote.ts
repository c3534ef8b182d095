import { messageOf } from '../../core/error-details.js';
import { engineContext, type RepoLocation, type RunState } from '../../checkpoint/index.js';
import { remoteContext } from '../../git/remote.js';
import { readPushedTip, readRemoteRunView } from '../../remote/remote-view.js';
import { behindAdvice, copyIsBehind } from '../remote/remote-truth.js';

/** How long `status` waits for a remote: it reports, it must not hang on a network. */
export const STATUS_REMOTE_TIMEOUT_MS = 15_000;

/** What the remote says of a run that pushes, as `status` shows it. */
export interface RemoteSaid {
  remote: string;
  /** One line: in step with this copy, went on without it, its branch moved, or unreachable. */
  said: string;
  /** The command that follows the remote, when this copy is behind it. */
  next: string | null;
}

/**
 * For a run that pushes and waits to be continued here: reads the remote's branch and record
 * (docs/contract.md, "The remote is the truth") and says whether this machine's copy is in step
 * with it. Null for a run that pushes nowhere.
 */
export async function remoteSaid(
  repo: RepoLocation,
  state: RunState,
  baseEnv: NodeJS.ProcessEnv,
): Promise<RemoteSaid | null> {
  const remote = state.remote?.push ?? null;
  if (remote === null) return null;
  const engine = { timeoutMs: STATUS_REMOTE_TIMEOUT_MS, baseEnv };
  const ctx = remoteContext(engineContext(repo, engine), STATUS_REMOTE_TIMEOUT_MS);
  try {
    const view = await readRemoteRunView(ctx, remote, state.change);
    if (await copyIsBehind(ctx, state.change, view)) {
      const { said, command } = behindAdvice(remote, state.change, view);
      return { remote, said, next: command };
    }
    const pushed = await readPushedTip(ctx, remote, state.change);
    if (pushed !== null && view.branch !== null && view.branch !== pushed) {
      return {
        remote,
        said: `${state.branch} on ${remote} is at ${view.branch.slice(0, 12)}, not where this run last pushed it (${pushed.slice(0, 12)}): someone else pushed to it (\`ralphtool resume ${state.change}\` says how to go on)`,
        next: null,
      };
    }
    return { remote, said: `in step with this machine's copy`, next: null };
  } catch (error) {
    return { remote, said: `not reachable now (${messageOf(error)})`, next: null };
  }
}
