import type { CompletionChoice } from '../../core/events.js';
import { fetchRunFrom } from '../../remote/fetch-run.js';
import { RemoteSession, type RemoteSessionRequest } from './remote-session.js';

export interface RunRemoteRequest extends Omit<RemoteSessionRequest, 'remote'> {
  /** Where the run pushes (`--push`, `--from`, or the record's); null: nowhere. */
  pushTo: string | null;
  /** `--from <remote>`: the run recorded there is fetched and becomes this machine's. */
  from: string | null;
  /** The command the refusals name (`run`: a new run, which fetches nothing). */
  command: 'run' | 'resume' | 'finish';
  /** `run --force`: a run recorded on the remote is started over. */
  force?: boolean;
  /** `finish`: how it ends the run. */
  choice?: CompletionChoice;
}

/**
 * The remote of a run that pushes (`run`, `resume`, `finish`; docs/contract.md, "Beyond one
 * machine"), opened the one way the commands share: the claim taken before anything changes,
 * then the remote read (remote-truth.ts: it must agree with this machine's copy of the run) or,
 * with `--from`, the run recorded on the remote fetched and made this machine's. Null when the
 * run pushes nowhere. A refusal or a fetch that fails gives the claim back before it goes on.
 */
export async function openRunRemote(req: RunRemoteRequest): Promise<RemoteSession | null> {
  const { pushTo, from, command, force = false, choice, ...session } = req;
  if (pushTo === null) return null;
  const remote = await RemoteSession.open({ ...session, remote: pushTo });
  try {
    if (from === null || command === 'run') {
      await remote.agree(command === 'run' ? 'start' : 'continue', force);
      return remote;
    }
    const fetched = await fetchRunFrom({
      cwd: req.cwd,
      remote: from,
      change: req.change,
      timeoutMs: req.commandTimeoutMs,
      env: req.env,
      command,
      ...(choice === undefined ? {} : { choice }),
    });
    for (const note of fetched.notes) req.notice(note);
    remote.remoteProgress = fetched.remoteProgress;
    remote.endedOnRemote = fetched.ended;
    return remote;
  } catch (error) {
    await remote.end();
    throw error;
  }
}
