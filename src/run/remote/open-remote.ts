import { fetchRunFrom } from '../../remote/fetch-run.js';
import { RemoteSession, type RemoteSessionRequest } from './remote-session.js';

export interface RunRemoteRequest extends Omit<RemoteSessionRequest, 'remote'> {
  /** Where the run pushes (`--push`, `--from`, or the record's); null: nowhere. */
  pushTo: string | null;
  /** `--from <remote>`: the run recorded there is fetched and becomes this machine's. */
  from: string | null;
  /** The command the refusals name. */
  command: 'resume' | 'finish';
}

/**
 * The remote of a run that continues (`resume`, `finish`; docs/contract.md, "Continue
 * anywhere"), opened the one way both commands share: the claim taken before anything changes,
 * then, with `--from`, the run recorded on the remote fetched and made this machine's. Null when
 * the run pushes nowhere. A fetch that fails gives the claim back before the error goes on.
 */
export async function openRunRemote(req: RunRemoteRequest): Promise<RemoteSession | null> {
  const { pushTo, from, command, ...session } = req;
  if (pushTo === null) return null;
  const remote = await RemoteSession.open({ ...session, remote: pushTo });
  if (from === null) return remote;
  try {
    const fetched = await fetchRunFrom({
      cwd: req.cwd,
      remote: from,
      change: req.change,
      timeoutMs: req.commandTimeoutMs,
      env: req.env,
      command,
    });
    for (const note of fetched.notes) req.notice(note);
    remote.remoteProgress = fetched.remoteProgress;
    return remote;
  } catch (error) {
    await remote.end();
    throw error;
  }
}
