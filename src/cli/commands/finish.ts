import { rm } from 'node:fs/promises';
import { UsageError } from '../../core/errors.js';
import { openRun } from '../../checkpoint/index.js';
import { DEFAULT_RUN_OPTIONS } from '../../run/options.js';
import { repairNotice } from '../../run/repair-notice.js';
import { assertResumable, killOrphanedAgent, lockSession } from '../../run/session.js';
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
  const locks = await lockSession(opts.cwd, opts.change, timeoutMs, io.env);
  try {
    for (const warning of locks.warnings) io.stderr.write(`ralphtool: warning: ${warning}\n`);
    const run = await openRun({ cwd: opts.cwd, change: opts.change, timeoutMs, baseEnv: io.env });
    if (pruneOnly && run.state.status !== 'finished') {
      throw new UsageError(
        `the run of ${opts.change} is not finished: end it with --cleanup or --keep (add --prune to delete its refs)`,
      );
    }
    if (!pruneOnly) {
      assertResumable(run.state, 'finish');
      if (killOrphanedAgent(run.state)) {
        io.stderr.write('ralphtool: stopped the agent the interrupted run left running\n');
      }
      if (run.state.step?.op !== 'cleanup') {
        // Put back first (cleanup and keep would do it silently), to say what was found.
        const repaired = repairNotice(await run.ensureAtCheckpoint(), run.branch);
        if (repaired !== null) io.stderr.write(`ralphtool: ${repaired}\n`);
      }
      const outcome = run.state.outcome ?? 'stopped';
      if (cleanup) await run.cleanup({ outcome });
      // `finish --keep` ends the run for good, even with stories left.
      else await run.keep({ outcome, final: true });
      io.stderr.write(
        cleanup
          ? `ralphtool: cleanup done: back on ${run.originalLabel}, the work is left as uncommitted changes\n`
          : `ralphtool: kept: ${run.branch} has one commit per story (original branch: ${run.originalLabel})\n`,
      );
    }
    if (prune) {
      const count = await run.pruneAttemptRefs();
      await locks.release();
      await rm(run.paths.dir, { recursive: true, force: true });
      io.stderr.write(`ralphtool: pruned ${count} attempt ref(s) and the run folder\n`);
    }
    return 0;
  } finally {
    await locks.release();
    // A refusal (no run recorded) leaves no folder behind.
    await locks.forgetIfUnused();
  }
}
