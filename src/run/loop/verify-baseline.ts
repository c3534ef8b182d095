import { afterBaseline } from '../../core/verify-ratchet.js';
import type { LoopDeps, LoopSetup } from '../loop-types.js';
import { runVerifyCommands } from './verify.js';

/** The name the baseline's leftovers are saved under: `refs/ralphtool/<change>/attempts/verify-baseline-0`. */
export const BASELINE_LABEL = 'verify-baseline';

/**
 * The verify baseline (docs/contract.md, "The verify ratchet"): before this invocation's first
 * attempt, each `--verify` command runs once on the checkpoint, and the run state records which
 * pass. A command that fails there does not block an attempt until it has passed once.
 *
 * The tree is put at the checkpoint first (no attempt runs now: the loop has not started one,
 * and a resume has stopped the dead run's agent and reverted its attempt). What the commands
 * leave in the tree (a `coverage/` folder that is not ignored, a rewritten snapshot) would
 * otherwise become the first attempt's work: it is saved under `verify-baseline-0` and
 * reverted, as an attempt is. Ignored files (caches, `node_modules/`) are never touched, and
 * never enter a commit. Not run with `--verify-strict`: every failure blocks there anyway.
 */
export async function runVerifyBaseline(setup: LoopSetup, deps: LoopDeps): Promise<void> {
  const { options } = setup;
  if (options.verify.length === 0 || options.verifyStrict || deps.stop.aborted) return;
  // No attempt will run: nothing to measure.
  if (setup.change.stories.every((s) => s.done)) return;
  await deps.run.ensureAtCheckpoint();
  const ran = await runVerifyCommands(
    options.verify,
    setup.repoRoot,
    setup.env,
    options.verifyTimeoutMs,
    deps.stop,
    () => false,
  );
  const left = await deps.run.ensureAtCheckpoint({ as: BASELINE_LABEL });
  // A stop during the baseline leaves the ratchet as it was: the loop ends without an attempt.
  if (!deps.stop.aborted) {
    await deps.run.recordVerify(afterBaseline(deps.run.state.verify, ran.outcomes));
    deps.emit({ type: 'verify.baseline', results: ran.outcomes });
  }
  if (left.savedRef !== null) {
    deps.emit({
      type: 'error',
      message: `the --verify commands changed the work tree at the baseline: saved as ${left.savedRef} and reverted, so the first attempt starts from the checkpoint`,
      fatal: false,
    });
  }
  for (const message of deps.run.takeNotices()) deps.emit({ type: 'error', message, fatal: false });
}
