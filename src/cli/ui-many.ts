import type { CompletionChoice } from '../core/events.js';
import type { RunMode } from '../run/launch/launch.js';
import type { ManyRunHooks, ManyRunRequest, ManyRunResult } from '../run/many/many-types.js';
import { timed } from '../run/ndjson.js';
import type { RunOptions } from '../run/options.js';
import type { ManyRunsHandle, ManyRunsHooks } from '../ui/controller.js';

/** The multi-run engine (run/many/many.ts `runMany`), passed in so that tests can see its calls. */
export type ManyEngine = (request: ManyRunRequest, hooks: ManyRunHooks) => Promise<ManyRunResult>;

/** Several runs started from the UI, with what SIGTERM and SIGHUP need to know of them. */
export interface LiveManyRuns extends ManyRunsHandle {
  /** A stop was asked for (it may still be under way). */
  stopping(): boolean;
  /** Every run whose loop has not ended waits for its completion choice: nothing to stop. */
  parked(): boolean;
  /** Every run has ended. */
  ended(): boolean;
  /** Nobody will answer: every choice asked or still to come is "none", and the runs stop. */
  abandon(): void;
}

/**
 * Starts the marked changes together, each in a worktree of its own (`ralphtool run a b c`,
 * from the UI): the engine's hooks become the UI's, and the completion choices the UI sends
 * per change (or for all) answer the engine's `chooseCompletion`, whenever it asks.
 */
export function startManyFromUi(
  engine: ManyEngine,
  base: {
    cwd: string;
    options: RunOptions;
    env: NodeJS.ProcessEnv;
    parallel: number;
    mode?: RunMode;
  },
  changes: readonly string[],
  hooks: ManyRunsHooks,
  /** The user quit at once (q three times): the CLI reports it when the UI has closed. */
  onForceQuit: () => void,
): LiveManyRuns {
  const stop = new AbortController();
  const answers = new Map<string, CompletionChoice>();
  const asking = new Map<string, (choice: CompletionChoice | null) => void>();
  let all: CompletionChoice | null = null;
  let leaving = false;
  let ended = false;
  // Runs whose loop has not ended yet, and those of them that wait for their choice.
  const live = new Set(changes);
  const awaiting = new Set<string>();

  const answer = (change: string, choice: CompletionChoice | null): void => {
    const resolve = asking.get(change);
    asking.delete(change);
    resolve?.(choice);
  };
  const done = engine(
    {
      cwd: base.cwd,
      changes,
      // The choices come from the UI; the events too, never printed as lines or JSON.
      options: { ...base.options, worktree: true, onComplete: 'ask', json: false },
      mode: base.mode ?? 'start',
      parallel: base.parallel,
      env: base.env,
    },
    {
      emit: (change, event) => {
        if (event.type === 'run.finished') live.delete(change);
        if (event.type === 'run.awaiting-choice') awaiting.add(change);
        hooks.event(change, timed(event));
      },
      mergeChecked: (report) => hooks.mergeChecked(report),
      chooseCompletion: (change) =>
        new Promise<CompletionChoice | null>((resolve) => {
          // After a hang-up, SIGTERM or q×3 nobody will answer: the run stays resumable.
          const given = leaving ? null : (answers.get(change) ?? all);
          if (leaving || given !== null) resolve(given);
          else asking.set(change, resolve);
        }),
      stop: stop.signal,
      notice: (change, message) => hooks.notice(change, message),
    },
  ).then(
    (result) => {
      ended = true;
      return { exitCode: result.exitCode, runs: result.runs };
    },
    (error: unknown) => {
      ended = true;
      throw error;
    },
  );
  return {
    stop: () => stop.abort(),
    choose: (change, choice) => {
      if (asking.has(change)) answer(change, choice);
      else answers.set(change, choice);
    },
    chooseAll: (choice) => {
      all = choice;
      for (const change of [...asking.keys()]) answer(change, answers.get(change) ?? choice);
    },
    forceQuit: () => {
      onForceQuit();
      leaving = true;
      for (const change of [...asking.keys()]) answer(change, null);
      stop.abort();
    },
    done,
    stopping: () => stop.signal.aborted,
    parked: () => live.size > 0 && [...live].every((c) => awaiting.has(c)),
    ended: () => ended,
    abandon: () => {
      leaving = true;
      for (const change of [...asking.keys()]) answer(change, null);
      stop.abort();
    },
  };
}
