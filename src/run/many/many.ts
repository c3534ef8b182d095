import { userMessageOf } from '../../core/error-details.js';
import { RalphError } from '../../core/errors.js';
import type { CompletionChoice, RunOutcome } from '../../core/events.js';
import type { Footprint } from '../../core/footprint.js';
import { mostSeriousExit } from '../../core/many-exit.js';
import { ralphBranch } from '../../checkpoint/index.js';
import { AccountPause } from '../account-pause.js';
import { launchRun } from '../launch/launch.js';
import { FootprintSlots } from './footprint-slots.js';
import { estimateFootprints } from './footprints.js';
import { EndBarrier, SerialQueue, TurnQueue } from './many-sync.js';
import type {
  ManyRunEnd,
  ManyRunHooks,
  ManyRunRequest,
  ManyRunResult,
  MergeReport,
} from './many-types.js';
import { checkMerges } from './merge-check.js';

/**
 * Several runs in one ralphtool process (docs/contract.md, "Several changes at once"): up to
 * `parallel` loops at once, each change in a worktree of its own. One run's refusal or crash
 * ends that run only. No completion choice is applied before every loop has ended: then the
 * merge check, once, then each run's choice, one run after another (every cleanup writes into
 * the user's work tree).
 */
export async function runMany(req: ManyRunRequest, hooks: ManyRunHooks): Promise<ManyRunResult> {
  const slots = await footprintSlots(req, hooks);
  const barrier = new EndBarrier(req.changes.length);
  // The choices are applied one run after another, in the merge check's order when it found one
  // (each cleanup then applies onto what the one before brought home), else in the order given:
  // never in the order the loops happened to end.
  const completions = new TurnQueue();
  const asking: string[] = [];
  // Every run of the same agent kind shares the account: one run's limit wait holds the others.
  const pause = new AccountPause();
  // Worktree starts one at a time: a `git worktree add` fails on one being added beside it.
  const starts = new SerialQueue();

  let mergeChecked: Promise<void> | null = null;
  const afterAllLoops = (): Promise<void> => {
    mergeChecked ??= barrier
      .allEnded()
      .then(() => runMergeCheck(req, hooks))
      .then((report) => completions.setOrder(completionOrder(report, req.changes, asking)));
    return mergeChecked;
  };

  const asked = req.starts ?? { changes: [], options: req.options };
  const one = async (change: string): Promise<ManyRunEnd> => {
    const starting = asked.changes.includes(change);
    const release = await slots.acquire(change);
    // Once its loop has ended a run no longer works: its slot goes to the next change.
    let ended = false;
    const loopEnded = (): void => {
      if (ended) return;
      ended = true;
      release();
      barrier.arrive();
    };
    const stop = new AbortController();
    const chain = (): void => stop.abort();
    if (hooks.stop.aborted) stop.abort();
    else hooks.stop.addEventListener('abort', chain, { once: true });
    let finishCompletion: (() => void) | null = null;
    const chooseCompletion = async (
      outcome: RunOutcome,
      how?: { resolveConflicts: boolean },
    ): Promise<CompletionChoice | null> => {
      asking.push(change);
      loopEnded();
      await afterAllLoops();
      // Held until this run's launch has settled: its cleanup is done by then.
      finishCompletion = await completions.enter(change);
      return hooks.chooseCompletion(change, outcome, how);
    };
    try {
      if (stop.signal.aborted) return { change, exitCode: 130, error: 'stopped before it began' };
      const exitCode = await launchRun(
        {
          cwd: req.cwd,
          change,
          options: { ...(starting ? asked.options : req.options), worktree: true },
          mode: starting ? 'start' : req.mode,
          env: req.env,
        },
        {
          emit: (event) => hooks.emit(change, event),
          chooseCompletion,
          stop: stop.signal,
          notice: (message) => hooks.notice(change, message),
          accountPause: pause,
          enterStart: () => starts.enter(),
        },
      );
      return { change, exitCode, error: null };
    } catch (error) {
      // A full disk or a read-only folder is said as such; a bug still ends only this run.
      const message = userMessageOf(error);
      const exitCode = error instanceof RalphError ? error.exitCode : 1;
      return { change, exitCode, error: message };
    } finally {
      hooks.stop.removeEventListener('abort', chain);
      loopEnded();
      (finishCompletion as (() => void) | null)?.();
    }
  };

  const runs = await Promise.all(req.changes.map(one));
  return { exitCode: mostSeriousExit(runs.map((r) => r.exitCode)), runs };
}

/**
 * The places of the runs, given by footprint when some changes wait for one (more changes than
 * `--parallel`): a change waits while another that shares no path with the running ones can go.
 * Each change that waits, or starts beside one it shares paths with, is said once.
 */
async function footprintSlots(req: ManyRunRequest, hooks: ManyRunHooks): Promise<FootprintSlots> {
  const parallel = Math.max(1, req.parallel);
  const footprints =
    req.changes.length > parallel && parallel > 1
      ? await estimateFootprints({
          cwd: req.cwd,
          changes: req.changes,
          timeoutMs: req.options.commandTimeoutMs,
          env: req.env,
        })
      : new Map<string, Footprint>();
  const said = new Set<string>();
  const shared = (paths: readonly string[]): string =>
    paths.length > 3
      ? `${paths.slice(0, 3).join(', ')} and ${paths.length - 3} more`
      : paths.join(', ');
  return new FootprintSlots(parallel, req.changes, footprints, (next) => {
    for (const { change, overlap } of next.passed) {
      if (said.has(change)) continue;
      said.add(change);
      hooks.notice(
        change,
        `waits: it names ${shared(overlap.paths)}, which ${overlap.with} (running) names too; ${next.change} starts first`,
      );
    }
    if (next.overlap !== null) {
      hooks.notice(
        next.change,
        `starts beside ${next.overlap.with}, though both name ${shared(next.overlap.paths)}: every change left waiting does`,
      );
    }
  });
}

/**
 * The order in which the runs that ask for a choice get it: the merge check's order (every
 * branch in it applies onto the ones before), then the rest as given.
 */
export function completionOrder(
  report: MergeReport | null,
  given: readonly string[],
  asking: readonly string[],
): string[] {
  const first = (report?.order ?? []).filter((change) => asking.includes(change));
  return [
    ...first,
    ...given.filter((change) => asking.includes(change) && !first.includes(change)),
  ];
}

/** The merge check of every run's branch; a failure of the check itself is a notice, not an end. */
async function runMergeCheck(
  req: ManyRunRequest,
  hooks: ManyRunHooks,
): Promise<MergeReport | null> {
  try {
    const report = await checkMerges({
      cwd: req.cwd,
      timeoutMs: req.options.commandTimeoutMs,
      env: req.env,
      runs: req.changes.map((change) => ({ change, branch: ralphBranch(change) })),
    });
    hooks.mergeChecked(report);
    return report;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    hooks.notice(null, `the merge check failed (${message}); each run's choice follows`);
    return null;
  }
}
