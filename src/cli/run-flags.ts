import { Option, type Command } from 'commander';
import { UsageError } from '../core/errors.js';
import type { IntentKey } from '../core/run-intent.js';
import { splitCommandLine } from '../process/command-line.js';
import {
  AGENT_KINDS,
  DEFAULT_RUN_OPTIONS,
  PARALLEL_LIMITS,
  type AgentKind,
  type OnComplete,
  type RunOptions,
} from '../run/options.js';
import {
  parseChoice,
  parseCommandLine,
  parseCount,
  parseDuration,
  parsedOr,
  parseName,
  parsePositiveDuration,
} from './options.js';
import { remoteOptions, type RawRemoteFlags } from './remote-flags.js';
import {
  addSandboxOptions,
  sandboxIntentGiven,
  sandboxOptions,
  type RawSandboxFlags,
} from './sandbox-flags.js';
import { unattendedOptions } from './unattended-flags.js';
import {
  maxReviewRoundsOption,
  reviewAgentOption,
  reviewCommandOption,
  reviewIntentGiven,
  reviewOption,
  reviewOptions,
  type RawReviewFlags,
} from './review-flags.js';
import {
  fallbackAgentOption,
  fallbackAgents,
  fallbackModelOption,
  repeatable,
} from './fallback-flags.js';

/** Flags as commander hands them over: strings, validated by toRunOptions. */
export interface RawRunFlags extends RawRemoteFlags, RawReviewFlags, RawSandboxFlags {
  agent?: string;
  agentCommand?: string;
  model?: string;
  maxRetries?: string;
  commandTimeout?: string;
  agentTimeout?: string;
  idleTimeout?: string;
  verifyTimeout?: string;
  verify?: string[];
  onComplete?: string;
  json?: boolean;
  force?: boolean;
  onLimit?: string;
  maxWait?: string;
  pauseAt?: string;
  maxCost?: string;
  maxStoryCost?: string;
  maxDuration?: string;
  verifyStrict?: boolean;
  allowTestChanges?: boolean;
  notify?: string[];
  notifyUrl?: string[];
  notifyTimeout?: string;
  worktree?: boolean;
  keepWorktree?: boolean;
  resolveConflicts?: boolean;
  worktreeParent?: string;
  /** several changes at once */
  parallel?: string;
  all?: boolean;
  fallbackAgent?: string[];
  fallbackModel?: string[];
  /** resume only */
  answer?: string;
  answerFile?: string;
  /** Not a flag: the repository's checked `.ralphtool/prompt.md` (cli/settings/load.ts). */
  promptTemplate?: string;
}

export const ON_COMPLETE: readonly OnComplete[] = ['ask', 'cleanup', 'keep'];

export function addRunOptions(cmd: Command): Command {
  const run = cmd
    .addOption(
      new Option(
        '--agent <name>',
        'agent backend: claude, codex, opencode, gemini or command (each vendor CLI is $RALPHTOOL_<AGENT>_BIN when set, else on PATH, and must print JSON events: a program printing none is stopped after 20 lines or 5s, and the run ends)',
      ),
    )
    .addOption(
      new Option('--agent-command <cmdline>', 'for --agent command: program and arguments'),
    )
    .addOption(
      new Option(
        '--model <name>',
        "model passed to the agent CLI (opencode: provider/model; default: the agent's)",
      ),
    )
    .addOption(new Option('--max-retries <n>', 'retries after a failed attempt (default: 3)'))
    .addOption(
      new Option(
        '--command-timeout <seconds>',
        'limit for each git command ralphtool runs (default: 30)',
      ),
    )
    .addOption(
      new Option(
        '--agent-timeout <duration>',
        'wall-clock limit per attempt (default: 60m; 0 = none)',
      ),
    )
    .addOption(
      new Option(
        '--idle-timeout <duration>',
        'kill an attempt silent this long (default: 15m; 0 = none)',
      ),
    )
    .addOption(
      new Option(
        '--verify <cmdline>',
        'run after COMPLETE; non-zero exit fails the attempt, unless it failed before the run too and has not passed since (repeatable)',
      ).argParser(repeatable),
    )
    .addOption(
      new Option(
        '--verify-timeout <duration>',
        'limit for each --verify command (default: 10m; 0 = none)',
      ),
    )
    .addOption(
      new Option(
        '--on-complete <choice>',
        'ask, cleanup or keep (default: ask on a TTY, else keep)',
      ),
    )
    .addOption(
      new Option(
        '--verify-strict',
        'a --verify command blocks from the first attempt, even if it failed before the run',
      ),
    )
    .addOption(
      new Option(
        '--allow-test-changes',
        'let an attempt delete, empty or skip tests or change what --verify runs (test scripts, runner configs): reported instead of failed (tests-weakened); resume keeps it',
      ),
    )
    .addOption(
      new Option(
        '--on-limit <what>',
        'at a usage/rate limit or API overload: wait (until its reset + 10s, else a backoff) and try the story again uncounted, or stop with exit 5 (default: wait)',
      ),
    )
    .addOption(
      new Option(
        '--max-wait <duration>',
        'longest total wait for limits in one invocation; a wait past it is not begun: stop with exit 5, resumable (default: 8h)',
      ),
    )
    .addOption(
      new Option(
        '--pause-at <percent>',
        "start no new attempt once the agent's account window is this percent used (1-100, as its agent last reported); wait until its reset, shared by every run on the account (default: none)",
      ),
    )
    .addOption(fallbackAgentOption())
    .addOption(fallbackModelOption())
    .addOption(
      new Option(
        '--max-cost <usd>',
        'budget of the run in US dollars, checked before each attempt; resume keeps it (exit 5)',
      ),
    )
    .addOption(
      new Option('--max-story-cost <usd>', 'budget of each story, across its attempts (exit 5)'),
    )
    .addOption(
      new Option(
        '--max-duration <duration>',
        'stop at the next attempt boundary after this long, waits included (exit 5)',
      ),
    )
    .addOption(
      new Option(
        '--notify <cmdline>',
        'run this program (no shell; the event as JSON on stdin) when the run ends, a story gives up or asks, or a limit wait starts or ends (repeatable; a resume without notification flags tells the ones the run was started with)',
      ).argParser(repeatable),
    )
    .addOption(
      new Option(
        '--notify-url <url>',
        'POST the same event JSON to this URL (repeatable)',
      ).argParser(repeatable),
    )
    .addOption(
      new Option(
        '--notify-timeout <duration>',
        'time limit of each notification: a program past it is killed, a URL tried once more (default: 30s)',
      ),
    )
    .addOption(reviewOption())
    .addOption(reviewAgentOption())
    .addOption(reviewCommandOption())
    .addOption(maxReviewRoundsOption())
    .addOption(new Option('--json', 'write NDJSON events to stdout and nothing else'));
  return addSandboxOptions(run);
}

const WORKTREE_PARENT_HELP =
  'the folder the worktrees are made in, as <dir>/<repo>.ralph/<change> (default: the folder holding your repository)';

/**
 * `run` and `resume`: a worktree of its own per run, several changes at once. The UI (the
 * bare command) takes `--parallel` only: it starts the runs it is asked to in worktrees.
 */
export function addWorktreeOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option(
        '--worktree',
        'run in a worktree of its own beside yours (<repo>.ralph/<change>), from your HEAD: keep working in yours meanwhile (implied by several changes)',
      ),
    )
    .addOption(new Option('--keep-worktree', "leave the run's worktree in place when it ends"))
    .addOption(new Option('--worktree-parent <dir>', WORKTREE_PARENT_HELP))
    .addOption(
      new Option(
        '--resolve-conflicts',
        'a run in a worktree whose work collides with yours at the cleanup: its agent gets one more story, bringing the branch onto your work tree, judged like any; then it comes home (else it is kept on ralph/<change>); resume keeps it',
      ),
    )
    .addOption(
      new Option('--all', 'every change with stories left (run), every recorded run (resume)'),
    )
    .addOption(
      new Option(
        '--parallel <n>',
        `how many runs work at once with several changes (default: ${PARALLEL_LIMITS.default}, at most ${PARALLEL_LIMITS.max})`,
      ),
    );
}

/**
 * The bare command (the UI): the changes marked on its list start together, each in a worktree
 * of its own, up to `--parallel` at once; `--keep-worktree` as for `run`.
 */
export function addUiWorktreeOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option(
        '--keep-worktree',
        "changes started together from the list: leave each run's worktree in place when it ends",
      ),
    )
    .addOption(new Option('--worktree-parent <dir>', WORKTREE_PARENT_HELP))
    .addOption(
      new Option(
        '--parallel <n>',
        `changes started together from the list: how many work at once (default: ${PARALLEL_LIMITS.default}, at most ${PARALLEL_LIMITS.max})`,
      ),
    );
}

/** `--parallel`: a whole number from 1 to the maximum. */
export function parseParallel(value: string | undefined, flag = '--parallel'): number {
  if (value === undefined) return PARALLEL_LIMITS.default;
  const n = /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isInteger(n) || n < 1 || n > PARALLEL_LIMITS.max) {
    throw new UsageError(
      `${flag}: ${JSON.stringify(value)} is not a whole number from 1 to ${PARALLEL_LIMITS.max} (each run is an agent at work; ${PARALLEL_LIMITS.default} is the default)`,
    );
  }
  return n;
}

/** `resume` only: the answer to the question a blocked run asked. */
export function addAnswerOptions(cmd: Command): Command {
  return cmd
    .addOption(
      new Option('--answer <text>', 'answer the question the blocked run asked (resume only)'),
    )
    .addOption(
      new Option('--answer-file <file>', 'read the answer from a file (resume only)').conflicts(
        'answer',
      ),
    );
}

/** Validates raw flags into RunOptions; any mistake is a UsageError (exit 2). */
export function toRunOptions(flags: RawRunFlags, interactive: boolean): RunOptions {
  let agent: AgentKind =
    flags.agent === undefined
      ? DEFAULT_RUN_OPTIONS.agent
      : parseChoice(flags.agent, AGENT_KINDS, '--agent');
  if (flags.agentCommand !== undefined && flags.agent === undefined) agent = 'command';
  const fallbacks = fallbackAgents(flags, agent);
  const commandFallback = fallbacks?.some((f) => f.agent === 'command') === true;
  if (flags.agentCommand !== undefined && agent !== 'command' && !commandFallback) {
    throw new UsageError(`--agent-command is only for --agent command (got --agent ${agent})`);
  }
  let agentCommand: string | null = null;
  if (agent === 'command' || commandFallback) {
    if (flags.agentCommand === undefined || splitCommandLine(flags.agentCommand).length === 0) {
      const who = agent === 'command' ? '--agent command' : '--fallback-agent command';
      throw new UsageError(`${who} needs --agent-command "<program> [args]"`);
    }
    agentCommand = flags.agentCommand;
  }
  for (const verify of flags.verify ?? []) parseCommandLine(verify, '--verify');
  const onComplete =
    flags.onComplete === undefined
      ? interactive
        ? 'ask'
        : 'keep'
      : parseChoice(flags.onComplete, ON_COMPLETE, '--on-complete');
  if (onComplete === 'ask' && !interactive) {
    throw new UsageError(
      '--on-complete ask needs a terminal to answer on (stdin and stderr are not both terminals): pass --on-complete cleanup or keep',
    );
  }
  if (flags.model !== undefined) parseName(flags.model, '--model');
  // OpenCode splits the name at its first slash; without one it would run no model at all.
  if (agent === 'opencode' && flags.model !== undefined && !/^[^/\s]+\/\S/.test(flags.model)) {
    throw new UsageError(
      `--model for --agent opencode is provider/model (e.g. anthropic/claude-sonnet-4-5), got ${JSON.stringify(flags.model)}`,
    );
  }
  return {
    agent,
    agentCommand,
    model: flags.model ?? null,
    maxRetries: parsedOr(
      flags.maxRetries,
      '--max-retries',
      parseCount,
      DEFAULT_RUN_OPTIONS.maxRetries,
    ),
    commandTimeoutMs: parsedOr(
      flags.commandTimeout,
      '--command-timeout',
      parsePositiveDuration,
      DEFAULT_RUN_OPTIONS.commandTimeoutMs,
    ),
    agentTimeoutMs: parsedOr(
      flags.agentTimeout,
      '--agent-timeout',
      parseDuration,
      DEFAULT_RUN_OPTIONS.agentTimeoutMs,
    ),
    idleTimeoutMs: parsedOr(
      flags.idleTimeout,
      '--idle-timeout',
      parseDuration,
      DEFAULT_RUN_OPTIONS.idleTimeoutMs,
    ),
    verify: flags.verify ?? [],
    verifyTimeoutMs: parsedOr(
      flags.verifyTimeout,
      '--verify-timeout',
      parseDuration,
      DEFAULT_RUN_OPTIONS.verifyTimeoutMs,
    ),
    onComplete,
    json: flags.json === true,
    force: flags.force === true,
    ...unattendedOptions(flags),
    ...reviewOptions(flags),
    fallbacks,
    worktree: flags.worktree === true,
    keepWorktree: flags.keepWorktree === true,
    resolveConflicts: flags.resolveConflicts === true,
    // Absolute: made so where the settings are read (settings/load.ts, `withSettings`).
    worktreeParent: flags.worktreeParent ?? null,
    ...remoteOptions(flags),
    ...sandboxOptions(flags),
    intentGiven: intentGiven(flags),
    promptTemplate: flags.promptTemplate ?? null,
  };
}

/** The parts of the run's intent these flags give (a resume keeps the recorded rest). */
function intentGiven(flags: RawRunFlags): Set<IntentKey> {
  const given: [IntentKey, boolean][] = [
    ['agent', flags.agent !== undefined || flags.agentCommand !== undefined],
    ['agentCommand', flags.agentCommand !== undefined],
    ['model', flags.model !== undefined],
    ['maxRetries', flags.maxRetries !== undefined],
    ['agentTimeoutMs', flags.agentTimeout !== undefined],
    ['idleTimeoutMs', flags.idleTimeout !== undefined],
    ['verify', flags.verify !== undefined],
    ['verifyTimeoutMs', flags.verifyTimeout !== undefined],
    ['verifyStrict', flags.verifyStrict === true],
    ['allowTestChanges', flags.allowTestChanges === true],
    ['onLimit', flags.onLimit !== undefined],
    ['maxWaitMs', flags.maxWait !== undefined],
    ...reviewIntentGiven(flags),
    ...sandboxIntentGiven(flags),
    ['pauseAt', flags.pauseAt !== undefined],
    ['resolveConflicts', flags.resolveConflicts === true],
  ];
  return new Set(given.filter(([, yes]) => yes).map(([key]) => key));
}
