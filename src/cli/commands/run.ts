import { clean } from '../../format/text.js';
import { ON_PATH, reachable } from '../../core/reach.js';
import { QuitNow, UsageError } from '../../core/errors.js';
import type { CompletionChoice, RunEvent, RunOutcome } from '../../core/events.js';
import { launchRun, type RunMode } from '../../run/launch/launch.js';
import { timed, toNdjsonLine } from '../../run/ndjson.js';
import { notifierWith, notifyTargetsFor } from '../../run/unattended/notify-intent.js';
import { gateAgentChatter } from '../../run/output-gate.js';
import { askCompletionChoice } from '../completion-prompt.js';
import { stopWhenOutputCloses } from '../closed-output.js';
import type { CommandIO } from '../io.js';
import { ProgressPrinter } from '../render/progress.js';
import { SilenceLine } from '../render/silence.js';
import { parseParallel, toRunOptions, type RawRunFlags } from '../run-flags.js';
import { headlessQuit } from '../stop-signals.js';
import { assertDirectory } from './cwd.js';
import { checkWithSettings } from '../settings/check.js';
import { withSettings } from '../settings/load.js';

/**
 * `ralphtool run <change>` and `ralphtool resume <change>`, headless: progress lines
 * or NDJSON events on stdout, Ctrl-C to stop, the completion choice by flag or prompt.
 */
export async function runCommand(
  io: CommandIO,
  opts: { cwd: string; changes: readonly string[]; flags: RawRunFlags; mode: RunMode },
): Promise<number> {
  assertDirectory(opts.cwd);
  const interactive = io.stdin.isTTY === true && (io.stderr as { isTTY?: boolean }).isTTY === true;
  const settings = await withSettings(opts.cwd, io.env, opts.flags, opts.mode);
  checkWithSettings(settings, interactive);
  const flags = settings.flags;
  const parallel = parseParallel(flags.parallel);
  const [only, ...more] = opts.changes;
  if (flags.all === true && only !== undefined) {
    throw new UsageError(
      `--all takes every change${opts.mode === 'resume' ? ' with a recorded run' : ' with stories left'}: name changes or pass --all, not both`,
    );
  }
  if (only === undefined && flags.all !== true) {
    throw new UsageError(
      `name the change to ${opts.mode === 'resume' ? 'resume' : 'run'} (\`ralphtool ${opts.mode === 'resume' ? 'status' : 'list'}\` shows them), several, or pass --all`,
    );
  }
  if (only === undefined || more.length > 0) {
    const { runManyCommand } = await import('./run-many.js');
    return runManyCommand(io, { ...opts, flags, parallel });
  }
  return runOneCommand(io, { cwd: opts.cwd, change: only, flags, mode: opts.mode }, interactive);
}

/** One change: the loop in this work tree (or, with --worktree, in a worktree of its own). */
async function runOneCommand(
  io: CommandIO,
  opts: { cwd: string; change: string; flags: RawRunFlags; mode: RunMode },
  interactive: boolean,
): Promise<number> {
  const options = toRunOptions(opts.flags, interactive);

  const stop = new AbortController();
  const reach = io.reach ?? ON_PATH;
  const output = stopWhenOutputCloses(
    io.stdout,
    stop,
    (m) => io.stderr.write(reachable(m, reach)),
    `ralphtool resume ${opts.change}`,
  );
  // On a terminal, lines under a story fit a line; into a file or a pipe they are whole.
  const printer = new ProgressPrinter(output.write, io.style, reach, {
    cut: io.stdout.isTTY === true,
  });
  // On a terminal only (never --json, a file or a pipe): a line while the agent is silent.
  const silence = !options.json && io.stdout.isTTY === true ? new SilenceLine() : null;
  const emit = gateAgentChatter(io.stdout, (event: RunEvent): void => {
    silence?.see(event, Date.now());
    if (options.json) output.write(toNdjsonLine(timed(event)));
    else printer.handle(event);
  });
  const beat =
    silence === null
      ? null
      : setInterval(() => {
          const line = silence.due(Date.now());
          if (line !== null) output.write(`${io.style.dim(line)}\n`);
        }, 1000);
  beat?.unref();
  const {
    quitting,
    quitNow,
    hungUp,
    remove: removeSignals,
  } = headlessQuit(stop, (m) => io.stderr.write(reachable(m, reach)));

  let branches = { branch: `ralph/${opts.change}`, original: 'your branch' };
  const chooseCompletion = async (outcome: RunOutcome): Promise<CompletionChoice | null> => {
    if (hungUp()) return null;
    if (options.onComplete !== 'ask') return options.onComplete;
    return askCompletionChoice({
      input: io.stdin,
      output: io.stderr,
      outcome,
      change: opts.change,
      branch: branches.branch,
      original: branches.original,
      onInterrupt: () => quitNow(130),
    });
  };
  // Told of the events people need to know; run.finished is written once those are delivered.
  // A resume tells the people the run told, unless it is given its own notifications.
  const targets = notifyTargetsFor({
    cwd: opts.cwd,
    change: opts.change,
    mode: opts.mode,
    options,
    timeoutMs: options.commandTimeoutMs,
    env: io.env,
  });
  const notifier = notifierWith(
    {
      change: opts.change,
      cwd: opts.cwd,
      env: io.env,
      next: emit,
      holdFinished: true,
      phrase: (message) => reachable(message, reach),
    },
    targets,
  );
  try {
    const launched = launchRun(
      { cwd: opts.cwd, change: opts.change, options, mode: opts.mode, env: io.env },
      {
        emit: notifier.emit,
        chooseCompletion,
        stop: stop.signal,
        notice: (message) => io.stderr.write(`ralphtool: ${reachable(clean(message), reach)}\n`),
        onRun: (run) => {
          branches = { branch: run.branch, original: run.originalLabel };
        },
      },
    );
    const exitCode = await Promise.race([launched, quitting]);
    // The process must not end before the notifications are out; a quit at once does not wait.
    await Promise.race([notifier.settled(), quitting]);
    return exitCode;
  } catch (error) {
    if (error instanceof QuitNow) throw error;
    const message = error instanceof Error ? error.message : String(error);
    notifier.fatal(message);
    await Promise.race([notifier.settled(), quitting]);
    if (options.json) emit({ type: 'error', message, fatal: true });
    throw error;
  } finally {
    if (beat !== null) clearInterval(beat);
    removeSignals();
    output.remove();
  }
}
