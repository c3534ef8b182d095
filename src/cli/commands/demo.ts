import { ON_PATH, reachable, type Reach } from '../../core/reach.js';
import { countStories } from '../../core/change.js';
import { QuitNow } from '../../core/errors.js';
import { demoAgentCommandLine, demoVerifyCommandLine } from '../../demo/agent-path.js';
import { demoClosing, demoIntro, demoUiNote } from '../../demo/messages.js';
import { createDemoRepo, type DemoRepo } from '../../demo/repo.js';
import { listAttemptRefs, ralphBranch } from '../../checkpoint/index.js';
import { headPosition, locateRepo } from '../../git/repo.js';
import { DEFAULT_RUN_OPTIONS } from '../../run/options.js';
import { collectRunStatuses } from '../../run/status/status.js';
import { readChange } from '../../openspec/changes.js';
import type { CommandIO } from '../io.js';
import { toRunOptions, type RawRunFlags } from '../run-flags.js';
import { leaveOnTerm } from '../term-leave.js';
import { createUiController } from '../ui-controller.js';
import { runCommand } from './run.js';
import { loadInteractiveUi } from '../interactive.js';
import { installHint } from '../../agents/programs.js';

const QUIT_AT_ONCE = 130;

/**
 * `ralphtool demo`: the real loop on a fresh example repository with the scripted
 * demo agent, in the UI on a terminal, else as `run`'s progress lines (or NDJSON).
 */
export async function demoCommand(io: CommandIO, opts: { json: boolean }): Promise<number> {
  const interactive = !opts.json && io.stdin.isTTY === true && io.stdout.isTTY === true;
  // With --json, stdout carries only events: the explanations go to stderr.
  const say = (text: string): void => {
    (opts.json ? io.stderr : io.stdout).write(text);
  };
  const timeoutMs = DEFAULT_RUN_OPTIONS.commandTimeoutMs;
  const repo = await createDemoRepo({ timeoutMs, baseEnv: io.env });
  const change = await readChange(repo.dir, repo.change);
  say(
    demoIntro({
      dir: repo.dir,
      change: repo.change,
      stories: countStories(change.stories).total,
      interactive,
    }),
  );

  const flags = demoFlags(opts.json);
  let code: number;
  try {
    code = interactive
      ? await runInUi(io, repo, flags)
      : await runCommand(io, { cwd: repo.dir, changes: [repo.change], flags, mode: 'start' });
  } catch (error) {
    say(`\nThe demo repository is left at ${repo.dir}\n`);
    throw error;
  }
  say(reachable(await closingText(repo, timeoutMs, io.env), demoReach(io.reach ?? ON_PATH)));
  // After a quit at once the stopped loop may still be winding down: leave now, like the UI does.
  if (code === QUIT_AT_ONCE && interactive) throw new QuitNow(QUIT_AT_ONCE);
  return code;
}

/**
 * The demo's hints name ralphtool as the user's shell can run it: `npm run demo` runs it from the
 * checkout, where no `ralphtool` is on PATH unless `npm link` put it there.
 */
function demoReach(reach: Reach): Reach {
  return reach.byPath ? { ...reach, ralphtool: reach.byPath } : reach;
}

/** `run`'s options for the demo: the scripted agent, short limits, the project's tests as --verify. */
function demoFlags(json: boolean): RawRunFlags {
  return {
    agent: 'command',
    agentCommand: demoAgentCommandLine(process.execPath),
    verify: [demoVerifyCommandLine(process.execPath)],
    agentTimeout: '60s',
    idleTimeout: '30s',
    // Not interactive: keep the branch with one commit per story (the UI asks instead).
    onComplete: 'keep',
    json,
  };
}

/** The interactive UI on the demo repository, showing the scripted agent by its name. */
async function runInUi(io: CommandIO, repo: DemoRepo, flags: RawRunFlags): Promise<number> {
  const options = { ...toRunOptions(flags, true), onComplete: 'ask' as const };
  // A copy: loading the UI clears CI variables from this process, not from the agents'.
  const controller = createUiController(repo.dir, options, { ...io.env });
  const renderApp = await loadInteractiveUi(io.processEnv ?? io.env);
  const demoController = {
    ...controller,
    runOptions: {
      ...controller.runOptions,
      agent: 'demo (scripted, no AI)',
      note: demoUiNote(repo.change),
    },
  };
  // As in `ralphtool`'s UI: SIGTERM where nothing runs ends the demo with 130.
  const term = leaveOnTerm(controller);
  try {
    const code = await renderApp(demoController, { leave: term.leave });
    return term.terminated() ? QUIT_AT_ONCE : code;
  } finally {
    term.remove();
  }
}

async function closingText(
  repo: DemoRepo,
  timeoutMs: number,
  baseEnv: NodeJS.ProcessEnv,
): Promise<string> {
  const ctx = { cwd: repo.dir, timeoutMs, baseEnv };
  const location = await locateRepo(ctx);
  const runs = location ? await collectRunStatuses(location, '', timeoutMs, baseEnv) : [];
  const run = runs.find((r) => r.change === repo.change);
  const head = await headPosition(ctx);
  const refs = await listAttemptRefs(ctx, repo.change);
  return demoClosing({
    dir: repo.dir,
    change: repo.change,
    run: run === undefined ? 'none' : run.state === 'finished' ? 'finished' : 'unfinished',
    onRunBranch: head.kind === 'branch' && head.name === ralphBranch(repo.change),
    savedAttemptRef: refs[0] ?? null,
    installClaude: installHint('claude'),
  });
}
