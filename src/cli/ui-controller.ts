import path from 'node:path';
import { splitCommandLine } from '../process/command-line.js';
import { RalphError } from '../core/errors.js';
import { ON_PATH, reachable, type Reach } from '../core/reach.js';
import type { CompletionChoice, RunEvent } from '../core/events.js';
import { changedFilesSince } from '../git/changed-files.js';
import type { CheckpointRun } from '../checkpoint/index.js';
import { finishRecordedRun } from '../run/launch/finish-run.js';
import { recordedRunMarks } from '../run/recorded-marks.js';
import { accountWindows } from '../run/status/status-account.js';
import { launchRun } from '../run/launch/launch.js';
import { runMany } from '../run/many/many.js';
import { notifierWith, notifyTargetsFor } from '../run/unattended/notify-intent.js';
import { timed } from '../run/ndjson.js';
import type { RunOptions } from '../run/options.js';
import { listChanges, readChange } from '../openspec/changes.js';
import { findOpenSpecRoot } from '../openspec/root.js';
import { verifyPlan } from '../run/setup.js';
import type { RunHandle, UiController } from '../ui/controller.js';
import { PARALLEL_LIMITS } from '../run/options.js';
import { startManyFromUi, type LiveManyRuns, type ManyEngine } from './ui-many.js';

/**
 * The UI's run options by what it does: the settings files' recorded parts (contract:
 * "Settings") apply to the runs it starts, never to those it resumes, which keep their record.
 */
export interface UiRunOptions {
  start: RunOptions;
  resume: RunOptions;
}

/**
 * The bridge between the UI and the run layer: the UI asks, this runs git, the spec
 * reader and the loop, and hands back events. The UI itself never touches them.
 */
export function createUiController(
  cwd: string,
  /** The options of the runs it starts, and of those it resumes, when they differ. */
  optionsByMode: RunOptions | UiRunOptions,
  env: NodeJS.ProcessEnv,
  /** How the user's shell reaches ralphtool, for the commands named in notifications. */
  reach: Reach = ON_PATH,
  /** Several runs started from the list: how many work at once (`--parallel`), and the engine. */
  many: { parallel: number; engine?: ManyEngine } = { parallel: PARALLEL_LIMITS.default },
): UiController & {
  terminate(): Promise<Termination>;
  quitAtOnce(): boolean;
  hangUp(): Promise<void>;
  notificationsDelivered(): Promise<void>;
} {
  const byMode =
    'start' in optionsByMode ? optionsByMode : { start: optionsByMode, resume: optionsByMode };
  const options = byMode.start;
  const runs = new Map<string, CheckpointRun>();
  // The deliveries of every run started here, awaited before ralphtool exits.
  const deliveries = new Set<Promise<void>>();
  let active: LiveRun | null = null;
  // Several runs started together from the list (the dashboard).
  let activeMany: LiveManyRuns | null = null;
  let forced = false;
  let hungUp = false;
  // SIGTERM where nobody is asked to stop anything (the choice, a wait): ralphtool leaves.
  let leaving = false;
  /** Lets go of `run` (its choice unanswered, its loop stopped), then the notifications. */
  const release = async (run: LiveRun | null): Promise<void> => {
    if (run !== null) {
      run.abandon();
      await run.done.then(
        () => undefined,
        () => undefined,
      );
    }
    // Nobody watches any more: a notification is how the user learns the run stopped.
    await Promise.all(deliveries);
  };
  /** Lets go of several runs: every choice is answered "none", every loop stopped. */
  const releaseMany = async (runs: LiveManyRuns): Promise<void> => {
    runs.abandon();
    await runs.done.then(
      () => undefined,
      () => undefined,
    );
  };
  const primaryLabel =
    options.agent === 'command' ? commandLabel(options.agentCommand ?? '') : options.agent;
  // Fallback agents (docs/contract.md, "Fallback agents") are named with the agent they back up.
  const fallbacks = (options.fallbacks ?? []).map((f) => f.agent);
  const agentLabel =
    fallbacks.length > 0 ? `${primaryLabel} (fallbacks: ${fallbacks.join(', ')})` : primaryLabel;

  return {
    listChanges: async () => listChanges(findOpenSpecRoot(cwd)),
    readChange: async (name, root) => readChange(findOpenSpecRoot(root ?? cwd), name),
    runOptions: {
      agent: agentLabel,
      model: options.model,
      maxRetries: options.maxRetries,
      agentTimeoutMs: options.agentTimeoutMs,
      idleTimeoutMs: options.idleTimeoutMs,
      verify: options.verify,
      suggestedVerify: suggestedVerify(cwd),
      parallel: many.parallel,
      keepWorktree: options.keepWorktree,
    },
    recordedRuns: async () => recordedRunMarks(cwd, options.commandTimeoutMs, env),
    // The accounts of the runs' agents (the primary's and each fallback's), as `status` reads them.
    accounts: async () => accountWindows([options.agent, ...fallbacks], env, Date.now()),
    finishRun: async (change, choice) => {
      // The UI shows one line: the notes on the way (an attempt saved, say) lead it.
      const notes: string[] = [];
      const done = await finishRecordedRun({
        cwd,
        change,
        choice,
        timeoutMs: options.commandTimeoutMs,
        env,
        notice: (note) => notes.push(note),
      });
      return [...notes, done.message].join(' · ');
    },
    startRun(change, onEvent, mode = 'start', questionAnswer) {
      const stop = new AbortController();
      let answer: ((choice: CompletionChoice | null) => void) | null = null;
      let pending: CompletionChoice | null = null;
      // Whether the loop sleeps through a usage-limit wait (agent.limited until the next event).
      let waiting = false;
      // Whether the loop has ended (run.finished): a blocked or failed run asks no choice, and
      // its last steps (locks, notifications) may still be settling: nothing is left to stop.
      let ended = false;
      // Events go to the UI at once; notifications are delivered beside the UI.
      // A resume tells the people the run told, unless the UI was given its own notifications.
      const targets = notifyTargetsFor({
        cwd,
        change,
        mode,
        options: byMode[mode],
        timeoutMs: options.commandTimeoutMs,
        env,
      });
      const notifier = notifierWith(
        {
          change,
          cwd,
          env,
          next: (event: RunEvent): void => {
            if (event.type === 'run.finished') ended = true;
            if (event.type === 'agent.limited') waiting = true;
            else if (event.type !== 'error') waiting = false;
            onEvent(timed(event));
          },
          holdFinished: false,
          phrase: (message) => reachable(message, reach),
        },
        targets,
      );
      const emit = notifier.emit;
      const done = launchRun(
        {
          cwd,
          change,
          options: {
            ...byMode[mode],
            onComplete: 'ask',
            json: false,
            // An answer typed in the UI, as `resume --answer` gives one.
            ...(questionAnswer === undefined ? {} : { answer: questionAnswer }),
          },
          mode,
          env,
        },
        {
          emit,
          stop: stop.signal,
          chooseCompletion: () =>
            new Promise<CompletionChoice | null>((resolve) => {
              // After a hang-up or SIGTERM nobody will answer: the run stays resumable.
              if (hungUp || leaving) resolve(null);
              else if (pending) resolve(pending);
              else answer = resolve;
            }),
          // Shown as "warning: …" by the UI already.
          notice: (message) =>
            emit({ type: 'error', message: message.replace(/^warning: /, ''), fatal: false }),
          onRun: (run) => runs.set(change, run),
        },
      ).then(
        (exitCode) => ({ exitCode }),
        (error: unknown) => {
          notifier.fatal(error instanceof Error ? error.message : String(error));
          if (!(error instanceof RalphError)) throw error;
          emit({ type: 'error', message: error.message, fatal: true });
          return { exitCode: error.exitCode };
        },
      );
      const settle = (): Promise<void> => notifier.settled();
      const delivered = done.then(settle, settle);
      deliveries.add(delivered);
      delivered.then(
        () => deliveries.delete(delivered),
        () => deliveries.delete(delivered),
      );
      const handle: LiveRun = {
        stop: () => stop.abort(),
        stopping: () => stop.signal.aborted,
        waiting: () => waiting,
        parked: () => answer !== null,
        ended: () => ended,
        abandon: () => {
          if (answer) answer(null);
          else stop.abort();
        },
        choose: (choice) => {
          if (answer) answer(choice);
          else pending = choice;
        },
        // The CLI exits right after the UI closes; the run stays on disk for resume/finish.
        forceQuit: () => {
          forced = true;
          stop.abort();
        },
        done,
        get transcriptsDir() {
          return runs.get(change)?.paths.transcriptsDir;
        },
      };
      active = handle;
      // Both outcomes are handled here, so a loop that threw rejects only the promise the UI
      // awaits (and shows); a `.finally` would fork a second rejection nobody handles, and
      // Node ends the process on an unhandled rejection.
      const release = (): void => {
        if (active === handle) active = null;
      };
      done.then(release, release);
      return handle;
    },
    startRuns(changes, hooks) {
      const handle = startManyFromUi(
        many.engine ?? runMany,
        { cwd, options, env, parallel: many.parallel },
        changes,
        hooks,
        () => {
          forced = true;
        },
      );
      activeMany = handle;
      const release = (): void => {
        if (activeMany === handle) activeMany = null;
      };
      handle.done.then(release, release);
      return handle;
    },
    changedFiles: async (finished) => {
      const run = runs.get(finished.change);
      const original = run?.state.originalSha ?? null;
      return changedFilesSince(
        { cwd, timeoutMs: options.commandTimeoutMs, baseEnv: env },
        original,
      );
    },
    /**
     * SIGTERM. A live attempt is asked to stop, like `q` ('stopping': the UI then shows the
     * completion choice). A second SIGTERM while that stop is under way quits at once ('at-once',
     * as headless does). Anywhere else (the completion choice, a usage-limit wait, a screen with
     * no run) ralphtool leaves ('quit'): the choice goes unanswered and the run is released for
     * `resume` / `finish`; this settles once that is recorded and the notifications are out.
     */
    terminate: async () => {
      const several = activeMany;
      if (several !== null && !leaving && !several.parked() && !several.ended()) {
        if (!several.stopping()) {
          several.stop();
          return 'stopping';
        }
        several.forceQuit();
        return 'at-once';
      }
      if (several !== null) {
        leaving = true;
        await releaseMany(several);
      }
      const run = active;
      if (run !== null && !leaving && !run.waiting() && !run.parked() && !run.ended()) {
        if (!run.stopping()) {
          run.stop();
          return 'stopping';
        }
        run.forceQuit();
        return 'at-once';
      }
      leaving = true;
      await release(run);
      return 'quit';
    },
    /** The terminal closed: stops (or releases) the live run and settles once it is recorded. */
    hangUp: async () => {
      hungUp = true;
      if (activeMany !== null) await releaseMany(activeMany);
      await release(active);
    },
    /** Resolves once the notifications of every run started here are delivered or given up. */
    notificationsDelivered: async () => {
      await Promise.all(deliveries);
    },
    /** Whether the user quit at once (q three times) while a run was live. */
    quitAtOnce: () => forced,
  };
}

/** What SIGTERM did in the UI (see `terminate`). */
export type Termination = 'stopping' | 'at-once' | 'quit';

/** A run started here, with what SIGTERM and SIGHUP need to know of it. */
interface LiveRun extends RunHandle {
  /** A stop was asked for (it may still be under way). */
  stopping(): boolean;
  /** The loop sleeps through a usage-limit wait. */
  waiting(): boolean;
  /** The loop waits for the completion choice. */
  parked(): boolean;
  /** The loop has ended (run.finished): there is nothing left to stop. */
  ended(): boolean;
  /** Nobody will answer: the choice is answered "none" (null), or the loop is stopped. */
  abandon(): void;
}

/** A short label for a command agent: the base names of its words, so the options row fits. */
function commandLabel(commandLine: string): string {
  const words = splitCommandLine(commandLine).map((w) => path.basename(w));
  const label = words.join(' ');
  return `command (${label.length > 40 ? `${label.slice(0, 39)}…` : label})`;
}

/** The project's test commands, inferred from its files (the hint when --verify is not given). */
function suggestedVerify(cwd: string): readonly string[] {
  let dirs = [cwd];
  try {
    dirs = [findOpenSpecRoot(cwd), cwd];
  } catch {
    // No openspec/ here: the UI says so on its own; the hint looks at cwd only.
  }
  return verifyPlan([], dirs).commands;
}
