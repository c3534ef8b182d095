import { clean } from '../../format/text.js';
import { UsageError } from '../../core/errors.js';
import type { CompletionChoice, RunEvent, RunOutcome } from '../../core/events.js';
import { ON_PATH, reachable } from '../../core/reach.js';
import type { RunMode } from '../../run/launch/launch.js';
import { readChange } from '../../openspec/changes.js';
import { findOpenSpecRoot } from '../../openspec/root.js';
import { clashesOf } from '../../run/many/merge-clash.js';
import type { MergeReport } from '../../run/many/many-types.js';
import { runMany } from '../../run/many/many.js';
import { selectAll } from '../../run/many/many-select.js';
import { settleBatch } from '../../run/many/batch-record.js';
import { askedRuns } from './many-batch.js';
import type { Notifier } from '../../run/unattended/notify.js';
import { notifierWith, notifyTargetsFor } from '../../run/unattended/notify-intent.js';
import { gateAgentChatter } from '../../run/output-gate.js';
import { askCompletionChoice } from '../completion-prompt.js';
import { stopWhenOutputCloses } from '../closed-output.js';
import type { CommandIO } from '../io.js';
import { ManyOutput } from '../render/many-output.js';
import { toRunOptions, type RawRunFlags } from '../run-flags.js';
import { headlessQuit } from '../stop-signals.js';
import { assertDirectory } from './cwd.js';

/**
 * `ralphtool run a b c`, `run --all`, `resume a b`, `resume --all`: several runs in this one
 * process, each change in a worktree of its own (docs/contract.md, "Several changes at once").
 */
export async function runManyCommand(
  io: CommandIO,
  opts: {
    cwd: string;
    changes: readonly string[];
    flags: RawRunFlags;
    mode: RunMode;
    parallel: number;
  },
): Promise<number> {
  const interactive = io.stdin.isTTY === true && (io.stderr as { isTTY?: boolean }).isTTY === true;
  const options = { ...toRunOptions(opts.flags, interactive), worktree: true };
  assertDirectory(opts.cwd);
  const reach = io.reach ?? ON_PATH;
  const say = (message: string): void => {
    io.stderr.write(`ralphtool: ${reachable(clean(message), reach)}\n`);
  };
  const duplicate = opts.changes.find((name, i) => opts.changes.indexOf(name) !== i);
  if (duplicate !== undefined) {
    throw new UsageError(`${duplicate} is named twice: name each change once`);
  }
  // A name mistyped is a usage error before any run starts, not one run refused among others.
  if (opts.mode === 'start') {
    const specRoot = findOpenSpecRoot(opts.cwd);
    for (const change of opts.changes) await readChange(specRoot, change);
  }
  let changes = [...opts.changes];
  const timeoutMs = options.commandTimeoutMs;
  // `resume --all` also starts what a crashed `run a b c` never started (batch-record.ts).
  let asked =
    opts.mode === 'resume'
      ? await askedRuns({ ...opts, changes }, interactive, timeoutMs, io.env)
      : null;
  if (opts.flags.all === true) {
    const alsoStarting = asked?.starts != null;
    const selection = await selectAll(opts.cwd, opts.mode, timeoutMs, io.env, alsoStarting);
    for (const left of selection.leftOut) say(`--all leaves out ${left.change}: ${left.why}`);
    changes = selection.changes;
  }
  asked ??= await askedRuns({ ...opts, changes }, interactive, timeoutMs, io.env);
  const starts = asked.starts;
  if (starts !== null) {
    say(
      `--all starts ${starts.changes.join(', ')}: asked for by the run of ${starts.startedAt} and never started, with the options it was given`,
    );
    changes = [...changes, ...starts.changes];
  }
  const startsHere = (change: string): boolean => starts?.changes.includes(change) === true;

  const stop = new AbortController();
  const output = stopWhenOutputCloses(
    io.stdout,
    stop,
    (m) => io.stderr.write(reachable(m, reach)),
    opts.mode === 'resume' || opts.flags.all !== true
      ? `ralphtool resume ${changes.join(' ')}`
      : 'ralphtool resume --all',
  );
  const out = new ManyOutput(output.write, io.style, options.json, reach, io.stdout.isTTY === true);
  const {
    quitting,
    quitNow,
    hungUp,
    remove: removeSignals,
  } = headlessQuit(stop, (m) => io.stderr.write(reachable(m, reach)));

  // Each run's events go through a notifier of its own: every notification names its change.
  const notifiers = new Map<string, Notifier>();
  for (const change of changes) {
    notifiers.set(
      change,
      notifierWith(
        {
          change,
          cwd: opts.cwd,
          env: io.env,
          next: gateAgentChatter(io.stdout, (event: RunEvent) => out.event(change, event)),
          holdFinished: true,
          phrase: (message) => reachable(message, reach),
        },
        // `resume --all`: each run tells the people it told, unless given its own.
        notifyTargetsFor({
          cwd: opts.cwd,
          change,
          mode: startsHere(change) ? 'start' : opts.mode,
          options: startsHere(change) && starts !== null ? starts.options : options,
          timeoutMs: options.commandTimeoutMs,
          env: io.env,
        }),
      ),
    );
  }
  const originals = new Map<string, string>();
  let mergeShown = false;
  let report: MergeReport | null = null;
  const chooseCompletion = async (
    change: string,
    outcome: RunOutcome,
    how?: { resolveConflicts: boolean },
  ): Promise<CompletionChoice | null> => {
    if (hungUp()) return null;
    if (options.onComplete === 'cleanup') {
      return cleanupUnlessClash(change, how?.resolveConflicts ?? options.resolveConflicts);
    }
    if (options.onComplete !== 'ask') return options.onComplete;
    // Asked one change after another, once the merge check says how the branches fit together.
    if (!mergeShown) {
      mergeShown = true;
      for (const line of out.mergeLines()) io.stderr.write(`${line}\n`);
    }
    io.stderr.write(`[${change}] `);
    return askCompletionChoice({
      input: io.stdin,
      output: io.stderr,
      outcome,
      change,
      branch: `ralph/${change}`,
      original: originals.get(change) ?? 'your branch',
      onInterrupt: () => quitNow(130),
    });
  };
  // Brought home in this batch, in the order the choices are applied (run/many/many.ts).
  const cameHome = new Set<string>();
  // The merge check found a collision with the user's work tree, or with a change that came home
  // before this one: it stays on its branch. A clash with one that stayed is no reason to stay.
  const cleanupUnlessClash = (change: string, resolveConflicts: boolean): CompletionChoice => {
    const clashes = clashesOf(report, change).filter(
      (c) => c.with === report?.against || cameHome.has(c.with),
    );
    if (clashes.length === 0) return 'cleanup';
    // --resolve-conflicts: the cleanup is tried, and a collision becomes one more story.
    if (resolveConflicts) return 'cleanup';
    const withWhat = clashes
      .map(
        (c) => `${c.with === report?.against ? 'your work tree' : c.with} (${c.files.join(', ')})`,
      )
      .join('; ');
    say(
      `[${change}] kept on ralph/${change}, not brought home: the merge check found it collides with ${withWhat}; bring it in by hand (\`git merge --squash ralph/${change}\`)`,
    );
    out.keptBy(change, withWhat);
    return 'keep';
  };
  const settled = (): Promise<unknown> =>
    Promise.all([...notifiers.values()].map((n) => n.settled()));
  try {
    const ran = runMany(
      {
        cwd: opts.cwd,
        changes,
        options,
        mode: opts.mode,
        ...(starts === null ? {} : { starts }),
        parallel: opts.parallel,
        env: io.env,
      },
      {
        emit: (change, event) => {
          if (event.type === 'run.started') originals.set(change, event.originalBranch);
          if (event.type === 'run.finished' && event.choice === 'cleanup') cameHome.add(change);
          notifiers.get(change)?.emit(event);
        },
        mergeChecked: (checked) => {
          report = checked;
          out.mergeChecked(checked);
        },
        chooseCompletion,
        stop: stop.signal,
        notice: (change, message) => say(change === null ? message : `[${change}] ${message}`),
      },
    );
    const result = await Promise.race([ran, quitting]);
    for (const run of result.runs) {
      if (run.error === null) continue;
      say(`[${run.change}] ${run.error}`);
      notifiers.get(run.change)?.fatal(run.error);
      if (options.json) out.event(run.change, { type: 'error', message: run.error, fatal: true });
    }
    // The process must not end before the notifications are out; a quit at once does not wait.
    await Promise.race([settled(), quitting]);
    if (!options.json) output.write(`${out.summary(result).join('\n')}\n`);
    return result.exitCode;
  } finally {
    removeSignals();
    output.remove();
    // What never started stays recorded for `resume --all`; the rest is forgotten.
    await settleBatch(asked.gitCommonDir);
  }
}
