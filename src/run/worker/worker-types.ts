import type { SkipKind, WorkAction } from '../../core/work-left.js';

/** One change a worker took up, and how its run ended. */
export interface WorkerTaken {
  change: string;
  action: WorkAction;
  exitCode: number;
  /** The refusal or failure that ended it before or outside its loop, as one line. */
  error: string | null;
}

/** A change left alone at the worker's last look, and why. */
export interface WorkerSkip {
  change: string;
  skip: SkipKind;
  why: string;
}

/**
 * The worker's own choices (docs/contract.md, "Pull-mode workers"), beside its runs' events:
 * `--json` lines of their own, plain lines otherwise.
 */
export type WorkerEvent =
  | { type: 'worker.took'; change: string; action: WorkAction; why: string }
  | { type: 'worker.skipped'; change: string; skip: SkipKind; why: string }
  | { type: 'worker.lost'; change: string; why: string }
  | ({ type: 'worker.ran' } & WorkerTaken)
  | { type: 'worker.idle'; pollMs: number }
  /** `--max-duration` ran out before this change could be taken up: the worker ends. */
  | { type: 'worker.time-up'; change: string }
  | ({ type: 'worker.ended' } & WorkerResult);

export interface WorkerResult {
  /** 0 when every run it took up completed (or there was none), else the most serious. */
  exitCode: number;
  taken: WorkerTaken[];
  skipped: WorkerSkip[];
  /** `--max-duration` ran out with work left (exit 5). */
  timeUp: boolean;
}
