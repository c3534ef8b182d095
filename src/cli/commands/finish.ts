import { rm } from 'node:fs/promises';
import { UsageError } from '../../core/errors.js';
import { openRun } from '../../checkpoint/index.js';
import { DEFAULT_RUN_OPTIONS } from '../../run/options.js';
import { finishRecordedRun } from '../../run/finish-run.js';
import { lockSession } from '../../run/session.js';
import { isHomeRun, pruneHomeWorktree } from '../../run/prune-home.js';
import type { CommandIO } from '../io.js';
import { parsePositiveDuration } from '../options.js';
import { assertDirectory } from './cwd.js';

export interface FinishFlags {
  cleanup?: boolean;
  keep?: boolean;
  prune?: boolean;
  commandTimeout?: string;
}

/**
 * `ralphtool finish <change> --cleanup|--keep [--prune]`: ends a run that is not
 * active exactly as the completion choice would, after reverting a half-done attempt.
 */
export async function finishCommand(
  io: CommandIO,
  opts: { cwd: string; change: string; flags: FinishFlags },
): Promise<number> {
  const { cleanup = false, keep = false, prune = false } = opts.flags;
  if (cleanup && keep) throw new UsageError('finish takes --cleanup or --keep, not both');
  const pruneOnly = prune && !cleanup && !keep;
  if (!cleanup && !keep && !prune) {
    throw new UsageError('finish needs --cleanup or --keep (and --prune to delete attempt refs)');
  }
  const timeoutMs =
    opts.flags.commandTimeout === undefined
      ? DEFAULT_RUN_OPTIONS.commandTimeoutMs
      : parsePositiveDuration(opts.flags.commandTimeout, '--command-timeout');
  assertDirectory(opts.cwd);
  const retry = `finish ${opts.change}${cleanup ? ' --cleanup' : ''}${keep ? ' --keep' : ''}${prune ? ' --prune' : ''}`;
  let written: string[] = [];
  if (!pruneOnly) {
    const done = await finishRecordedRun({
      cwd: opts.cwd,
      change: opts.change,
      choice: cleanup ? 'cleanup' : 'keep',
      timeoutMs,
      env: io.env,
      retry,
      notice: (note) => io.stderr.write(`ralphtool: ${note}\n`),
    });
    io.stderr.write(`ralphtool: ${done.message}\n`);
    written = done.written;
  }
  if (prune) await pruneRun(io, { cwd: opts.cwd, change: opts.change, timeoutMs, retry }, written);
  return 0;
}

/**
 * `--prune`: deletes a finished run's attempt refs and its run folder, except the refs in
 * `keep` (what the finish just before saved from the work tree), which it names.
 */
async function pruneRun(
  io: CommandIO,
  at: { cwd: string; change: string; timeoutMs: number; retry: string },
  keep: readonly string[],
): Promise<void> {
  const { cwd, change, timeoutMs, retry } = at;
  const home = await isHomeRun({ cwd, change, timeoutMs, env: io.env });
  const locks = await lockSession(cwd, change, timeoutMs, io.env, { workTree: !home });
  try {
    for (const warning of locks.warnings) io.stderr.write(`ralphtool: warning: ${warning}\n`);
    const run = await openRun({ cwd, change, timeoutMs, baseEnv: io.env, retry });
    if (run.state.status !== 'finished') {
      throw new UsageError(
        `the run of ${change} is not finished: end it with --cleanup or --keep (add --prune to delete its refs)`,
      );
    }
    const count = await run.pruneAttemptRefs({}, keep);
    const worktree = await pruneHomeWorktree(run.state, { cwd, change, timeoutMs, env: io.env });
    if (worktree !== null) io.stderr.write(`ralphtool: ${worktree}\n`);
    await locks.release();
    await rm(run.paths.dir, { recursive: true, force: true });
    io.stderr.write(`ralphtool: pruned ${count} attempt ref(s) and the run folder\n`);
    for (const ref of keep) io.stderr.write(`ralphtool: ${keptNotice(ref)}\n`);
  } finally {
    await locks.release();
    // A refusal (no run recorded) leaves no folder behind.
    await locks.forgetIfUnused();
  }
}

function keptNotice(ref: string): string {
  return `kept ${ref}: it holds the changes this finish found in the work tree (\`git show --stat ${ref}\`); delete it with \`git update-ref -d ${ref}\` once you no longer need them`;
}
