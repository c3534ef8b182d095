import { createBackend } from '../../agents/index.js';
import { assertAgentAvailable } from '../../agents/preflight.js';
import type { Change } from '../../core/change.js';
import { countStories } from '../../core/change.js';
import { UsageError } from '../../core/errors.js';
import type { CompletionChoice, RunEvent, RunOutcome } from '../../core/events.js';
import { openRun, startRun, type CheckpointRun } from '../../git/index.js';
import { ensureLearningsFile } from '../../run/learnings.js';
import { timed, toNdjsonLine } from '../../run/ndjson.js';
import type { RunOptions } from '../../run/options.js';
import { runLoop } from '../../run/orchestrator.js';
import { assertResumable, killOrphanedAgent, lockSession } from '../../run/session.js';
import { promptPaths, storiesReader, verifyPlan } from '../../run/setup.js';
import { readChange } from '../../spec/changes.js';
import { findOpenSpecRoot } from '../../spec/root.js';
import { askCompletionChoice } from '../completion-prompt.js';
import type { CommandIO } from '../io.js';
import { ProgressPrinter } from '../render/progress.js';
import { toRunOptions, type RawRunFlags } from '../run-flags.js';
import { installStopSignals } from '../stop-signals.js';
import { assertDirectory } from './cwd.js';

export type RunMode = 'start' | 'resume';

/**
 * `ralphtool run <change>` and `ralphtool resume <change>`: the loop, headless
 * (progress lines or NDJSON events), under the change and work-tree locks.
 */
export async function runCommand(
  io: CommandIO,
  opts: { cwd: string; change: string; flags: RawRunFlags; mode: RunMode },
): Promise<number> {
  const interactive = io.stdin.isTTY === true && (io.stderr as { isTTY?: boolean }).isTTY === true;
  const options = toRunOptions(opts.flags, interactive);
  if (opts.mode === 'resume' && options.force) {
    throw new UsageError('--force is only for `ralphtool run`');
  }
  assertDirectory(opts.cwd);
  const specRoot = findOpenSpecRoot(opts.cwd);
  if (opts.mode === 'start') {
    const change = await readChange(specRoot, opts.change);
    if (!hasWorkLeft(change, io)) return 0;
  }
  const agentCommand = options.agentCommand ?? undefined;
  const agent = { agent: options.agent, ...(agentCommand ? { agentCommand } : {}) };
  assertAgentAvailable(agent, io.env);
  const backend = createBackend(
    { ...agent, ...(options.model ? { model: options.model } : {}) },
    io.env,
  );

  const locks = await lockSession(specRoot, opts.change, options.commandTimeoutMs);
  try {
    for (const warning of locks.warnings) io.stderr.write(`ralphtool: warning: ${warning}\n`);
    const run =
      opts.mode === 'start'
        ? await startRun({
            cwd: specRoot,
            change: opts.change,
            timeoutMs: options.commandTimeoutMs,
            force: options.force,
          })
        : await reopen(specRoot, opts.change, options, io);
    // Read after a resume's repair: the change is read from the checkpoint, not the user's branch.
    const change = await readChange(specRoot, opts.change);
    await ensureLearningsFile(run.paths.learnings);
    return await drive(io, run, change, specRoot, options, backend);
  } finally {
    await locks.release();
  }
}

function hasWorkLeft(change: Change, io: CommandIO): boolean {
  const stories = countStories(change.stories);
  if (stories.total === 0) {
    throw new UsageError(
      `${change.path}/tasks.md has no tasks (no "- [ ]" lines): add tasks first (\`ralphtool show ${change.name}\`)`,
    );
  }
  if (stories.done === stories.total) {
    io.stderr.write(
      `ralphtool: all ${stories.total} stories of ${change.name} are complete: nothing to do\n`,
    );
    return false;
  }
  return true;
}

/** Resume: the recorded run, its dead agent stopped, a half-done attempt saved and reverted. */
async function reopen(
  specRoot: string,
  change: string,
  options: RunOptions,
  io: CommandIO,
): Promise<CheckpointRun> {
  const run = await openRun({ cwd: specRoot, change, timeoutMs: options.commandTimeoutMs });
  assertResumable(run.state, 'resume');
  if (killOrphanedAgent(run.state)) {
    io.stderr.write('ralphtool: stopped the agent the interrupted run left running\n');
  }
  await run.update((draft) => {
    draft.pid = process.pid;
    draft.agentPgid = null;
  });
  const repair = await run.ensureAtCheckpoint();
  if (repair.repaired) {
    io.stderr.write(
      `ralphtool: reverted the interrupted attempt to the last checkpoint; its work is saved as ${repair.savedRef ?? 'a ref'}\n`,
    );
  }
  return run;
}

async function drive(
  io: CommandIO,
  run: CheckpointRun,
  change: Change,
  specRoot: string,
  options: RunOptions,
  backend: ReturnType<typeof createBackend>,
): Promise<number> {
  const printer = new ProgressPrinter((text) => io.stdout.write(text), io.style);
  const emit = (event: RunEvent): void => {
    if (options.json) io.stdout.write(toNdjsonLine(timed(event)));
    else printer.handle(event);
  };
  const stop = new AbortController();
  const exitNow = (code: number): never => process.exit(code);
  const removeSignals = installStopSignals(stop, (m) => io.stderr.write(m), exitNow);
  const chooseCompletion = async (outcome: RunOutcome): Promise<CompletionChoice> => {
    if (options.onComplete !== 'ask') return options.onComplete;
    return askCompletionChoice(io.stdin, io.stderr, outcome, run.branch, run.originalLabel, () =>
      exitNow(130),
    );
  };
  try {
    const result = await runLoop(
      {
        repoRoot: run.repo.root,
        change,
        paths: promptPaths(run.repo.root, specRoot, change),
        options,
        verify: verifyPlan(options.verify, [run.repo.root, specRoot]),
        rereadStories: storiesReader(specRoot, change.name),
      },
      { run, backend, emit, chooseCompletion, stop: stop.signal },
    );
    return result.exitCode;
  } catch (error) {
    if (options.json) {
      const message = error instanceof Error ? error.message : String(error);
      emit({ type: 'error', message, fatal: true });
    }
    throw error;
  } finally {
    removeSignals();
  }
}
