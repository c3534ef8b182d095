import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { setTimeout as delay } from 'node:timers/promises';
import { createClaudeTranslator } from '../../src/agents/claude-translator.js';
import { createCodexTranslator } from '../../src/agents/codex-translator.js';
import { createCommandTranslator } from '../../src/agents/command-translator.js';
import type {
  AgentBackend,
  AgentEvent,
  AttemptOutput,
  AttemptRequest,
  StreamTranslator,
} from '../../src/agents/types.js';
import { ByteTail, DEFAULT_MAX_LINE_BYTES, LineSplitter } from '../../src/process/stream.js';
import {
  recordInvocation,
  runScenario,
  type AgentFormat,
  type Scenario,
  type ScriptEnding,
} from './fake-agent-script.mjs';
import { cleanGitEnv } from './temp-repo.js';

/** How much of stderr an agent process's result keeps (as src/process/stream.ts does). */
const STDERR_TAIL_BYTES = 64 * 1024;

/** The backend a format stands for: the fake agent's formats are the vendors' streams. */
export const AGENT_OF_FORMAT = { plain: 'command', claude: 'claude', codex: 'codex' } as const;

export interface ScriptedAgentOptions {
  /** The fake agent's scenario file, read afresh at every attempt as the executable does. */
  scenarioFile: string;
  /** Where prompt-<key>.md and invocation-<key>.json go, as FAKE_AGENT_LOG_DIR. */
  logDir: string;
  format: AgentFormat;
  /** False when nothing will ever stop the loop: a `hang` step then fails the test at once. */
  stoppable: boolean;
}

/**
 * An agent backend that plays the fake agent's scenario inside the test process: the same
 * steps (shared with test/fixtures/agents/fake-agent.mjs) write the same files and the same
 * output, which goes through the backend's REAL stream translator, so that the loop sees what
 * it would see from the executable. What only a process has is played as its result: `exit`
 * is the exit code, `kill` the signal, `hang` waits for the loop's stop. It never times out
 * (the limits are process matters, tested with the spawned CLI) and has no process group.
 */
export function createScriptedAgent(options: ScriptedAgentOptions): AgentBackend {
  return {
    name: AGENT_OF_FORMAT[options.format],
    runAttempt: (request) => playAttempt(request, options),
  };
}

async function playAttempt(
  request: AttemptRequest,
  options: ScriptedAgentOptions,
): Promise<AttemptOutput> {
  // What runAgentProcess does before its agent starts.
  mkdirSync(path.dirname(request.promptFilePath), { recursive: true });
  writeFileSync(request.promptFilePath, request.prompt);
  mkdirSync(path.dirname(request.transcriptPath), { recursive: true });
  const run = recordInvocation(options.logDir, `${request.storyId}-${request.attempt}`, {
    argv: [],
    cwd: request.cwd,
    env: {
      RALPHTOOL_PROMPT_FILE: request.promptFilePath,
      RALPHTOOL_CHANGE: request.change,
      RALPHTOOL_STORY_ID: request.storyId,
      RALPHTOOL_ATTEMPT: String(request.attempt),
    },
    prompt: request.prompt,
    promptFile: request.promptFilePath,
  });
  const scenario = JSON.parse(readFileSync(options.scenarioFile, 'utf8')) as Scenario;

  const translator = translatorFor(options.format, request.cwd);
  // As runAgentProcess: once a fatal error makes the attempt useless, the agent is stopped.
  const giveUp = new AbortController();
  const stop = AbortSignal.any([request.signal, giveUp.signal]);
  const deliver = (event: AgentEvent): void => {
    if (event.type === 'error' && event.fatal) giveUp.abort();
    request.onEvent(event);
  };
  const lines = new LineSplitter(DEFAULT_MAX_LINE_BYTES, (line, truncated) =>
    translator.push(line, truncated).forEach(deliver),
  );
  const stderrTail = new ByteTail(STDERR_TAIL_BYTES);
  const transcript = (text: string): void => appendFileSync(request.transcriptPath, text);

  let ending: ScriptEnding;
  try {
    ending = await runScenario(scenario, {
      story: request.storyId,
      attempt: String(request.attempt),
      run,
      change: request.change,
      cwd: request.cwd,
      env: cleanGitEnv(),
      prompt: request.prompt,
      promptFile: request.promptFilePath,
      format: options.format,
      stdout: (text) => {
        transcript(text);
        lines.push(Buffer.from(text));
        return true;
      },
      drained: () => Promise.resolve(),
      stderr: (text) => {
        transcript(text);
        stderrTail.push(Buffer.from(text));
      },
      ignoreTerm: () => undefined,
      sleep: (ms) => delay(ms, undefined, { signal: stop }).catch(() => undefined),
      interrupted: () => stop.aborted,
    });
  } catch (error) {
    // The executable dies of an uncaught error with its trace on stderr and exit code 1.
    stderrTail.push(Buffer.from(`${error instanceof Error ? error.stack : String(error)}\n`));
    ending = { end: 'exit', code: 1 };
  }
  if (ending.end === 'hang') {
    if (!options.stoppable) {
      throw new Error(
        `the scenario hangs in attempt ${request.storyId}-${request.attempt}, but nothing stops the loop (give stopWhen)`,
      );
    }
    await stopped(stop);
  }
  lines.end();
  const exitCode = ending.end === 'done' ? 0 : ending.end === 'exit' ? ending.code : null;
  const outcome = translator.finish(stderrTail.text(), exitCode);
  const stoppedByLoop = ending.end === 'hang' || ending.end === 'interrupted';
  return {
    finalAnswer: outcome.finalAnswer,
    exitCode,
    // A stopped agent process dies of the SIGTERM sent to its group.
    signal: ending.end === 'kill' ? ending.signal : stoppedByLoop ? 'SIGTERM' : null,
    timedOut: null,
    aborted: stoppedByLoop && request.signal.aborted,
    stderrTail: stderrTail.text(),
    agentError: outcome.agentError,
    limit: outcome.limit ?? null,
    fatal: outcome.fatal,
  };
}

function translatorFor(format: AgentFormat, cwd: string): StreamTranslator {
  switch (format) {
    case 'plain':
      return createCommandTranslator();
    case 'claude':
      return createClaudeTranslator({ cwd });
    case 'codex': {
      const startedAt = Date.now();
      return createCodexTranslator({ elapsedMs: () => Date.now() - startedAt });
    }
  }
}

/** Resolves once `signal` is aborted: a hanging agent waits for nothing else. */
function stopped(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) =>
    signal.addEventListener('abort', () => resolve(), { once: true }),
  );
}
