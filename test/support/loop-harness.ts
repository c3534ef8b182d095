import type { Clock } from '../../src/core/clock.js';
import { INTENT_KEYS } from '../../src/core/run-intent.js';
import type { CompletionChoice, RunEvent, RunOutcome } from '../../src/core/events.js';
import { startRun } from '../../src/checkpoint/index.js';
import { findOpenSpecRoot } from '../../src/openspec/root.js';
import {
  DEFAULT_RUN_OPTIONS,
  REVIEW_DEFAULTS,
  REMOTE_DEFAULTS,
  SANDBOX_DEFAULTS,
  UNATTENDED_DEFAULTS,
  type RunOptions,
} from '../../src/run/options.js';
import { driveLoop } from '../../src/run/launch/launch.js';
import type { LoopSetup } from '../../src/run/loop/orchestrator.js';
import type { AgentFormat } from './fake-agent-script.mjs';
import { LoopFixture } from './loop-fixture.js';
import { MovingClock } from './moving-clock.js';
import { AGENT_OF_FORMAT, createScriptedAgent } from './scripted-agent.js';

/** The completion choice the loop gets: one of the two, or no answer (a Ctrl-D at the question). */
export type CompletionAnswer = CompletionChoice | 'unanswered';

export interface LoopRunRequest {
  completion: CompletionAnswer;
  /** Default 3, as `--max-retries`. */
  maxRetries?: number;
  /** As `--verify`, one command line each (run for real, without a shell). */
  verify?: readonly string[];
  /** The unattended-run options (budgets, limits, answer…) this run gets instead of their defaults. */
  options?: Partial<RunOptions>;
  /** The agent's stream: plain is `--agent command`; claude and codex go through their translators. */
  format?: AgentFormat;
  /** Asks the loop to stop (as Ctrl-C does) right after the first event this accepts. */
  stopWhen?: (event: RunEvent) => boolean;
  /** The environment the command was given (default: the test process's). */
  env?: NodeJS.ProcessEnv;
  /** The loop's clock (default: a MovingClock: limit waits and deadlines pass at once). */
  clock?: Clock;
}

export interface LoopRun {
  /** The exit code the CLI would end with. */
  exitCode: number;
  outcome: RunOutcome;
  choice: CompletionChoice | null;
  /** The outcomes the completion question was asked about. */
  asked: RunOutcome[];
  /** Every event the loop emitted, in order. */
  events(): RunEvent[];
}

/**
 * The real loop (runLoop) with the real checkpoint engine on this fixture's real repository,
 * run inside the test process: only the agent is a stand-in, playing the fake agent's scenario
 * in-process (see scripted-agent.ts). It does what `ralphtool run` does around the loop, except
 * what is about processes or the command line (flags, locks, signals, printing), which the
 * spawned-CLI tests cover. For the loop's decisions and their bookkeeping in git and state.json.
 * Its clock moves on at each wait instead of waiting (moving-clock.ts).
 */
export class LoopHarness extends LoopFixture {
  async run(request: LoopRunRequest): Promise<LoopRun> {
    const format = request.format ?? 'plain';
    const options: LoopSetup['options'] = {
      agent: AGENT_OF_FORMAT[format],
      agentCommand: format === 'plain' ? 'scripted-agent' : null,
      model: null,
      maxRetries: request.maxRetries ?? DEFAULT_RUN_OPTIONS.maxRetries,
      commandTimeoutMs: DEFAULT_RUN_OPTIONS.commandTimeoutMs,
      ...REVIEW_DEFAULTS,
      verifyTimeoutMs: DEFAULT_RUN_OPTIONS.verifyTimeoutMs,
      agentTimeoutMs: DEFAULT_RUN_OPTIONS.agentTimeoutMs,
      idleTimeoutMs: DEFAULT_RUN_OPTIONS.idleTimeoutMs,
      verify: request.verify ?? [],
      onComplete: request.completion === 'unanswered' ? 'ask' : request.completion,
      json: true,
      force: false,
      worktree: false,
      keepWorktree: false,
      resolveConflicts: false,
      worktreeParent: null,
      ...REMOTE_DEFAULTS,
      ...UNATTENDED_DEFAULTS,
      ...SANDBOX_DEFAULTS,
      intentGiven: new Set(INTENT_KEYS),
      ...request.options,
    };
    const events: RunEvent[] = [];
    const asked: RunOutcome[] = [];
    const stop = new AbortController();

    // As launchRun: start the recorded run, then drive the loop on it.
    const specRoot = findOpenSpecRoot(this.dir);
    const run = await startRun({
      baseEnv: process.env,
      cwd: specRoot,
      change: this.change,
      timeoutMs: options.commandTimeoutMs,
    });
    const result = await driveLoop(specRoot, this.change, options, request.env ?? process.env, {
      run,
      backend: createScriptedAgent({
        scenarioFile: this.scenarioFile,
        logDir: this.logDir,
        format,
        stoppable: request.stopWhen !== undefined,
      }),
      emit: (event) => {
        events.push(event);
        if (request.stopWhen?.(event) === true) stop.abort();
      },
      chooseCompletion: (outcome) => {
        asked.push(outcome);
        return Promise.resolve(request.completion === 'unanswered' ? null : request.completion);
      },
      stop: stop.signal,
      clock: request.clock ?? new MovingClock(),
    });
    return { ...result, asked, events: () => [...events] };
  }
}
