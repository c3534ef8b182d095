import { locateRepo } from '../../git/repo.js';
import { notInRepo } from '../../checkpoint/index.js';
import type { RunMode } from '../../run/launch/launch.js';
import { recordBatch, unstartedBatch } from '../../run/many/batch-record.js';
import type { RunOptions } from '../../run/options.js';
import { toRunOptions, type RawRunFlags } from '../run-flags.js';

/** What one many-run command was asked for, and for `resume --all` what it must start. */
export interface AskedRuns {
  gitCommonDir: string;
  /** `resume --all`: the changes a crashed command never started, and their options. */
  starts: { changes: string[]; options: RunOptions; startedAt: string } | null;
}

/**
 * `run a b c` / `run --all`: records the batch before any run starts (batch-record.ts).
 * `resume --all`: reads what a crashed batch never started; those are started with the flags
 * they were asked for, each flag given now replacing its own, and become this command's batch.
 */
export async function askedRuns(
  req: { cwd: string; mode: RunMode; flags: RawRunFlags; changes: readonly string[] },
  interactive: boolean,
  timeoutMs: number,
  env: NodeJS.ProcessEnv,
): Promise<AskedRuns> {
  const repo = await locateRepo({ cwd: req.cwd, timeoutMs, baseEnv: env });
  if (!repo) throw notInRepo(req.cwd);
  const { all: _all, ...given } = req.flags;
  if (req.mode === 'start') {
    await recordBatch(repo.gitCommonDir, req.changes, { ...given });
    return { gitCommonDir: repo.gitCommonDir, starts: null };
  }
  const left = req.flags.all === true ? await unstartedBatch(repo.gitCommonDir) : null;
  if (left === null) return { gitCommonDir: repo.gitCommonDir, starts: null };
  const flags = { ...(left.batch.flags as RawRunFlags), ...given };
  await recordBatch(repo.gitCommonDir, left.changes, { ...flags });
  const options = { ...toRunOptions(flags, interactive), worktree: true };
  return {
    gitCommonDir: repo.gitCommonDir,
    starts: { changes: left.changes, options, startedAt: left.batch.startedAt },
  };
}
