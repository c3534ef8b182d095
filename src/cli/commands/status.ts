import { ON_PATH, reachable } from '../../core/reach.js';
import path from 'node:path';
import { locateRepo } from '../../git/repo.js';
import { engineContext, notInRepo } from '../../checkpoint/index.js';
import { remoteContext } from '../../git/remote.js';
import { listRemoteRuns } from '../../remote/remote-runs.js';
import { remoteTimeoutMs } from '../../run/remote/remote-session.js';
import { renderRemoteRuns } from '../render/remote-status.js';
import { remoteName } from '../remote-flags.js';
import { DEFAULT_RUN_OPTIONS } from '../../run/options.js';
import { statusesWithOrphan } from '../../run/status/status.js';
import { unstartedBatch } from '../../run/many/batch-record.js';
import { findOpenSpecRoot } from '../../openspec/root.js';
import type { CommandIO } from '../io.js';
import { renderStatuses } from '../render/status.js';
import { assertDirectory } from './cwd.js';

/** `ralphtool status [--json]`: every run recorded in this repository and what to do next. */
export async function statusCommand(
  io: CommandIO,
  opts: { cwd: string; json: boolean; remote?: string },
): Promise<number> {
  assertDirectory(opts.cwd);
  const timeoutMs = DEFAULT_RUN_OPTIONS.commandTimeoutMs;
  const repo = await locateRepo({ cwd: opts.cwd, timeoutMs, baseEnv: io.env });
  if (!repo) throw notInRepo(opts.cwd);
  if (opts.remote !== undefined) {
    // The runs recorded on a remote: read with a fetch into ralphtool's own ref namespace.
    const remote = remoteName(opts.remote, '--remote');
    const engine = { timeoutMs, baseEnv: io.env };
    const ctx = remoteContext(engineContext(repo, engine), remoteTimeoutMs(timeoutMs));
    const runs = await listRemoteRuns(ctx, remote);
    if (opts.json) io.stdout.write(`${JSON.stringify({ remote, runs }, null, 2)}\n`);
    else io.stdout.write(renderRemoteRuns(remote, runs, io.style, new Date()));
    return 0;
  }
  let specRel: string | null;
  try {
    specRel = path.relative(repo.root, findOpenSpecRoot(opts.cwd)).split(path.sep).join('/');
  } catch {
    specRel = null;
  }
  const runs = await statusesWithOrphan(repo, specRel, timeoutMs, io.env);
  // What a crashed `run a b c` was asked for and never started: `resume --all` starts it.
  const left = await unstartedBatch(repo.gitCommonDir);
  const notStarted =
    left === null
      ? null
      : { changes: left.changes, askedAt: left.batch.startedAt, next: 'ralphtool resume --all' };
  if (opts.json) {
    io.stdout.write(
      `${JSON.stringify({ runs, ...(notStarted ? { notStarted } : {}) }, null, 2)}\n`,
    );
  } else {
    const text = renderStatuses(runs, io.style, new Date(), notStarted);
    io.stdout.write(reachable(text, io.reach ?? ON_PATH));
  }
  return 0;
}
