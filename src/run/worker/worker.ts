import { setTimeout as sleep } from 'node:timers/promises';
import { userMessageOf } from '../../core/error-details.js';
import { RalphError } from '../../core/errors.js';
import type { RunEvent } from '../../core/events.js';
import { mostSeriousExit } from '../../core/many-exit.js';
import type { WorkAction, WorkChoice } from '../../core/work-left.js';
import { launchRun } from '../launch/launch.js';
import type { RunOptions } from '../options.js';
import { ClaimedElsewhere } from '../remote/remote-claim.js';
import { surveyRemote, type Survey, type WorkerPlace } from './survey.js';
import type { WorkerEvent, WorkerResult, WorkerTaken } from './worker-types.js';

export interface WorkerRequest {
  place: WorkerPlace;
  /** The run options every run gets (the worker sets the remote, `keep` and no worktree). */
  options: RunOptions;
  /** `--watch`: look again this often once nothing is left; null: end then. */
  watchMs: number | null;
}

export interface WorkerHooks {
  /** Each run's events, with its change. */
  emit: (change: string, event: RunEvent) => void;
  /** The worker's own choices. */
  said: (event: WorkerEvent) => void;
  notice: (change: string | null, message: string) => void;
  /** Ctrl-C / SIGTERM: the run going on stops as a run does (claim given back), then the worker. */
  stop: AbortSignal;
  now?: () => Date;
}

/**
 * `ralphtool worker --from <remote>` (docs/contract.md, "Pull-mode workers"): looks at the
 * remote, takes up the first change with work left (core/work-left.ts) with the launch `run` and
 * `resume` use — claimed, pushed, kept — then looks again; ends when nothing is left, or with
 * `--watch` keeps looking until stopped. A change another worker took meanwhile is not this
 * worker's failure: it is looked at again. Each change is taken up once per worker.
 */
export async function runWorker(req: WorkerRequest, hooks: WorkerHooks): Promise<WorkerResult> {
  const now = hooks.now ?? ((): Date => new Date());
  const tried = new Set<string>();
  const taken: WorkerTaken[] = [];
  const skipsSaid = new Map<string, string>();
  let skipped: WorkChoice[] = [];
  let idle = false;
  // `--max-duration` is the worker's: each run gets the time left, none starts once it is out.
  const deadline =
    req.options.maxDurationMs === null ? null : now().getTime() + req.options.maxDurationMs;
  let timeUp = false;
  while (!hooks.stop.aborted) {
    const survey = await surveyRemote(req.place, tried, now());
    skipped = survey.choices.filter((c) => c.action === 'skip' && !tried.has(c.change));
    for (const choice of skipped) {
      if (choice.action !== 'skip' || skipsSaid.get(choice.change) === choice.why) continue;
      skipsSaid.set(choice.change, choice.why);
      hooks.said({
        type: 'worker.skipped',
        change: choice.change,
        skip: choice.skip,
        why: choice.why,
      });
    }
    const next = survey.choices.find(
      (c): c is Extract<WorkChoice, { action: WorkAction }> => c.action !== 'skip',
    );
    if (next === undefined) {
      if (req.watchMs === null) break;
      if (!idle) hooks.said({ type: 'worker.idle', pollMs: req.watchMs });
      idle = true;
      await sleep(req.watchMs, undefined, { signal: hooks.stop }).catch(() => undefined);
      continue;
    }
    const timeLeft = deadline === null ? null : deadline - now().getTime();
    if (timeLeft !== null && timeLeft <= 0) {
      timeUp = true;
      hooks.said({ type: 'worker.time-up', change: next.change });
      break;
    }
    idle = false;
    skipsSaid.delete(next.change);
    hooks.said({ type: 'worker.took', change: next.change, action: next.action, why: next.why });
    const ran = await takeUp(req, hooks, next.change, next.action, timeLeft);
    if (ran === 'lost' || (ran.error !== null && (await lostMeanwhile(req, survey, next.change)))) {
      const why =
        ran === 'lost' ? 'claimed by another machine first' : 'another worker took it first';
      hooks.said({ type: 'worker.lost', change: next.change, why });
      continue;
    }
    tried.add(next.change);
    taken.push(ran);
    hooks.said({ type: 'worker.ran', ...ran });
  }
  // Work left when the time ran out is a limit reached (exit 5), as for a run.
  const codes = [...taken.map((t) => t.exitCode), ...(timeUp ? [5] : [])];
  const exitCode = hooks.stop.aborted ? 130 : mostSeriousExit(codes);
  const result: WorkerResult = {
    exitCode,
    taken,
    timeUp,
    skipped: skipped.flatMap((c) =>
      c.action === 'skip' ? [{ change: c.change, skip: c.skip, why: c.why }] : [],
    ),
  };
  return result;
}

/** One change taken up: `run`, `resume` or `resume --from`, pushing to the remote, kept. */
async function takeUp(
  req: WorkerRequest,
  hooks: WorkerHooks,
  change: string,
  action: WorkAction,
  timeLeftMs: number | null,
): Promise<WorkerTaken | 'lost'> {
  const remote = req.place.remote;
  const options: RunOptions = {
    ...req.options,
    push: remote,
    from: action === 'resume-from' ? remote : null,
    onComplete: 'keep',
    worktree: false,
    force: false,
    maxDurationMs: timeLeftMs,
  };
  try {
    const exitCode = await launchRun(
      {
        cwd: req.place.cwd,
        change,
        options,
        mode: action === 'run' ? 'start' : 'resume',
        env: req.place.env,
      },
      {
        emit: (event) => hooks.emit(change, event),
        chooseCompletion: () => Promise.resolve('keep'),
        stop: hooks.stop,
        notice: (message) => hooks.notice(change, message),
      },
    );
    return { change, action, exitCode, error: null };
  } catch (error) {
    if (error instanceof ClaimedElsewhere) return 'lost';
    const exitCode = error instanceof RalphError ? error.exitCode : 1;
    return { change, action, exitCode, error: userMessageOf(error) };
  }
}

/**
 * A launch refused because the remote moved between the look and the claim (another worker
 * started, finished or took over the change): its record is not the one judged any more.
 */
async function lostMeanwhile(req: WorkerRequest, before: Survey, change: string): Promise<boolean> {
  try {
    const after = await surveyRemote(req.place, new Set(), new Date());
    return after.recordShas.get(change) !== before.recordShas.get(change);
  } catch {
    return false;
  }
}
