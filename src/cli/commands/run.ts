import { createBackend } from '../../agents/index.js';
import { assertAgentAvailable } from '../../agents/preflight.js';
import { countStories } from '../../core/change.js';
import { UsageError } from '../../core/errors.js';
import type { CompletionChoice, RunEvent, RunOutcome } from '../../core/events.js';
import { startRun } from '../../git/index.js';
import { ensureLearningsFile } from '../../run/learnings.js';
import { timed, toNdjsonLine } from '../../run/ndjson.js';
import { runLoop } from '../../run/orchestrator.js';
import { promptPaths, storiesReader, verifyPlan } from '../../run/setup.js';
import { readChange } from '../../spec/changes.js';
import { findOpenSpecRoot } from '../../spec/root.js';
import { askCompletionChoice } from '../completion-prompt.js';
import type { CommandIO } from '../io.js';
import { ProgressPrinter } from '../render/progress.js';
import { toRunOptions, type RawRunFlags } from '../run-flags.js';
import { installStopSignals } from '../stop-signals.js';
import { assertDirectory } from './cwd.js';

/** `ralphtool run <change>`: the loop, headless (progress lines or NDJSON events). */
export async function runCommand(
  io: CommandIO,
  opts: { cwd: string; change: string; flags: RawRunFlags },
): Promise<number> {
  const interactive = io.stdin.isTTY === true && (io.stderr as { isTTY?: boolean }).isTTY === true;
  const options = toRunOptions(opts.flags, interactive);
  assertDirectory(opts.cwd);
  const specRoot = findOpenSpecRoot(opts.cwd);
  const change = await readChange(specRoot, opts.change);
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
    return 0;
  }
  const agentCommand = options.agentCommand ?? undefined;
  assertAgentAvailable({ agent: options.agent, ...(agentCommand ? { agentCommand } : {}) }, io.env);
  const backend = createBackend(
    {
      agent: options.agent,
      ...(agentCommand ? { agentCommand } : {}),
      ...(options.model ? { model: options.model } : {}),
    },
    io.env,
  );

  const run = await startRun({
    cwd: specRoot,
    change: change.name,
    timeoutMs: options.commandTimeoutMs,
    force: options.force,
  });
  await ensureLearningsFile(run.paths.learnings);

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
