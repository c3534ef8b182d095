import { clean } from '../../format/text.js';
import { rm } from 'node:fs/promises';
import { UsageError } from '../../core/errors.js';
import { notInRepo, openRun, runPaths, type RunPaths } from '../../checkpoint/index.js';
import { DEFAULT_RUN_OPTIONS, REMOTE_DEFAULTS } from '../../run/options.js';
import { locateRepo } from '../../git/repo.js';
import { openRunRemote } from '../../run/remote/open-remote.js';
import { recordedState } from '../../run/recorded-state.js';
import { pushTarget } from '../../run/remote/remote-session.js';
import { remoteName } from '../remote-flags.js';
import { finishRecordedRun } from '../../run/launch/finish-run.js';
import { lockSession } from '../../run/session.js';
import { isHomeRun, pruneHomeWorktree } from '../../run/launch/prune-home.js';
import type { CommandIO } from '../io.js';
import { parsePositiveDuration } from '../options.js';
import { assertDirectory } from './cwd.js';

export interface FinishFlags {
  cleanup?: boolean;
  keep?: boolean;
  prune?: boolean;
  commandTimeout?: string;
  from?: string;
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
  let written: string[];
  const from = opts.flags.from === undefined ? null : remoteName(opts.flags.from, '--from');
  if (from !== null && pruneOnly) {
    throw new UsageError(
      'finish --from needs --cleanup or --keep: it ends the run fetched from the remote',
    );
  }
  // `--from`: the run recorded on the remote is claimed, fetched and ended here. A local run
  // that pushes (`remote` in its state) is claimed too, so that its end reaches the remote and
  // a run another machine holds is never ended under it.
  const here = await runPathsOf(opts.cwd, opts.change, timeoutMs, io.env);
  const where = { specRoot: opts.cwd, change: opts.change, timeoutMs, env: io.env };
  const remote = await openRunRemote({
    pushTo: pruneOnly ? null : pushTarget(from, await recordedState(where)),
    from,
    command: 'finish',
    choice: cleanup ? 'cleanup' : 'keep',
    change: opts.change,
    cwd: opts.cwd,
    commandTimeoutMs: timeoutMs,
    claimTtlMs: REMOTE_DEFAULTS.claimTtlMs,
    env: io.env,
    notice: (note) => io.stderr.write(`ralphtool: ${clean(note)}\n`),
  });
  // The run had ended on the remote: this repository followed it, and no run is recorded here.
  if (remote?.endedOnRemote === true) {
    await remote.end();
    return 0;
  }
  try {
    remote?.attachQuiet(here.paths, here.root);
    written = await finishHere(io, opts, { cleanup, keep, pruneOnly, timeoutMs, retry });
  } finally {
    await remote?.end();
  }
  if (prune) await pruneRun(io, { cwd: opts.cwd, change: opts.change, timeoutMs, retry }, written);
  return 0;
}

async function finishHere(
  io: CommandIO,
  opts: { cwd: string; change: string },
  at: { cleanup: boolean; keep: boolean; pruneOnly: boolean; timeoutMs: number; retry: string },
): Promise<string[]> {
  const { cleanup, pruneOnly, timeoutMs, retry } = at;
  let written: string[] = [];
  if (!pruneOnly) {
    const done = await finishRecordedRun({
      cwd: opts.cwd,
      change: opts.change,
      choice: cleanup ? 'cleanup' : 'keep',
      timeoutMs,
      env: io.env,
      retry,
      notice: (note) => io.stderr.write(`ralphtool: ${clean(note)}\n`),
    });
    io.stderr.write(`ralphtool: ${done.message}\n`);
    written = done.written;
  }
  return written;
}

async function runPathsOf(
  cwd: string,
  change: string,
  timeoutMs: number,
  env: NodeJS.ProcessEnv,
): Promise<{ paths: RunPaths; root: string }> {
  const repo = await locateRepo({ cwd, timeoutMs, baseEnv: env });
  if (repo === null) throw notInRepo(cwd);
  return { paths: runPaths(repo.gitCommonDir, change), root: repo.root };
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
