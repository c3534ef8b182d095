import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { agentEnvironment } from '../core/agent-environment.js';
import { RuntimeError } from '../core/errors.js';
import type { SandboxBlock } from '../core/sandbox-blocks.js';
import type { StrayProcess } from '../process/descendants.js';
import { streamProcess } from '../process/stream.js';
import {
  createNoJsonCheck,
  NO_JSON_QUIET_MS,
  noJsonMessage,
  type JsonExpectation,
  type NoJsonVerdict,
} from './no-json-check.js';
import type { AgentEvent, AttemptOutput, AttemptRequest, StreamTranslator } from './types.js';

export interface AgentLaunch {
  program: string;
  args: readonly string[];
  /** The environment the agent inherits, before ralphtool's own variables are added. */
  env: NodeJS.ProcessEnv;
  translator: StreamTranslator;
  /** What to tell the user when the program does not exist (how to install or fix it). */
  notFoundMessage: string;
  /**
   * How a JSON-lines agent's "printed no JSON" message names it (its product, the flag that makes
   * it print JSON, what to do); absent parts fall back to the program and its arguments.
   */
  expects?: Partial<JsonExpectation>;
}

/**
 * What every backend does with its agent process: writes the prompt file, streams
 * stdout through the backend's translator into events, keeps the transcript, and
 * stops the agent early once a fatal error (e.g. not logged in) makes its work useless.
 */
export async function runAgentProcess(
  request: AttemptRequest,
  launch: AgentLaunch,
): Promise<AttemptOutput> {
  await mkdir(dirname(request.promptFilePath), { recursive: true });
  await writeFile(request.promptFilePath, request.prompt);
  await mkdir(dirname(request.transcriptPath), { recursive: true });

  // Once the attempt is doomed (e.g. not logged in), waiting for the agent's own retries is waste.
  const giveUp = new AbortController();
  const deliver = (event: AgentEvent): void => {
    if (event.type === 'error' && event.fatal) giveUp.abort();
    request.onEvent(event);
  };

  const noJson = watchForJson(launch, () => giveUp.abort());
  // `--sandbox`: the same program and arguments, started inside the sandbox (it refuses rather
  // than run anything uncontained).
  let blocks: SandboxBlock[] = [];
  const contained = request.sandbox
    ? await request.sandbox.wrap(launch.program, launch.args, request.cwd)
    : null;
  const result = await streamProcess(
    contained?.program ?? launch.program,
    contained?.args ?? launch.args,
    {
      cwd: contained?.cwd ?? request.cwd,
      env: {
        // Never the forge's or the CI runner's credentials (core/agent-environment.ts).
        ...agentEnvironment(launch.env).env,
        // Some agents take their project directory from $PWD before their working directory
        // (OpenCode does): an inherited PWD, where ralphtool was started, would point them there.
        PWD: request.cwd,
        RALPHTOOL_PROMPT_FILE: request.promptFilePath,
        RALPHTOOL_CHANGE: request.change,
        RALPHTOOL_STORY_ID: request.storyId,
        RALPHTOOL_ATTEMPT: String(request.attempt),
        // The independent review: a `command` agent knows it is the reviewer.
        ...(request.readOnly === true ? { RALPHTOOL_REVIEW: '1' } : {}),
      },
      input: request.prompt,
      signal: AbortSignal.any([request.signal, giveUp.signal]),
      wallTimeoutMs: request.wallTimeoutMs,
      idleTimeoutMs: request.idleTimeoutMs,
      transcriptPath: request.transcriptPath,
      ...(request.onSpawn ? { onSpawn: request.onSpawn } : {}),
      // Agents start dev servers and watchers; none may outlive the attempt or write into the next.
      watchDescendants: true,
      onLine: (line, truncated) => {
        noJson.observe(line, truncated);
        launch.translator.push(line, truncated).forEach(deliver);
      },
      isProgress: launch.translator.isProgress?.bind(launch.translator),
    },
  ).finally(async () => {
    blocks = (await contained?.done()) ?? [];
  });

  if (result.strays.length > 0)
    deliver({ type: 'error', message: straysNotice(result.strays), fatal: false });

  if (result.notFound) throw new RuntimeError(launch.notFoundMessage);
  if (result.spawnError) {
    throw new RuntimeError(`Could not start \`${launch.program}\`: ${result.spawnError}`);
  }

  const outcome = launch.translator.finish(result.stderrTail, result.exitCode);
  // Retrying cannot help: the next attempt starts the same program with the same flags.
  const wrongProgram = noJson.end(result.aborted || result.timedOut !== null);
  return {
    finalAnswer: outcome.finalAnswer,
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    aborted: result.aborted && request.signal.aborted,
    stderrTail: result.stderrTail,
    agentError: outcome.agentError,
    fatal: wrongProgram ?? outcome.fatal,
    limit: outcome.limit ?? null,
    budgetReached: outcome.budgetReached ?? null,
    ...(blocks.length > 0 ? { sandboxBlocks: blocks } : {}),
  };
}

/** Names what the agent left running outside its process group, which ralphtool killed. */
function straysNotice(strays: readonly StrayProcess[]): string {
  const named = strays.map((s) => `${s.pid} (${s.command})`).join(', ');
  return `killed ${strays.length} process(es) the agent left running outside its process group: ${named}`;
}

/**
 * Stops a JSON-lines agent that prints no JSON at all (the wrong program, or a version without
 * the JSON flag) after its first lines, not after the idle timeout: `stop` kills it as a fatal
 * error does. `end` says why, once the process is over; null when it printed JSON, or is no
 * JSON-lines agent (the `command` agent prints text).
 */
function watchForJson(
  launch: AgentLaunch,
  stop: () => void,
): { observe: (line: string, truncated: boolean) => void; end: (cut: boolean) => string | null } {
  if ((launch.translator.format ?? 'json-lines') !== 'json-lines') {
    return { observe: () => undefined, end: () => null };
  }
  const check = createNoJsonCheck();
  const expected: JsonExpectation = {
    product: launch.expects?.product ?? `\`${launch.program}\``,
    flag: launch.expects?.flag ?? launch.args.join(' '),
    fix: launch.expects?.fix ?? `Check \`${launch.program} --version\`.`,
  };
  let reason: string | null = null;
  let quiet: NodeJS.Timeout | undefined;
  const decide = (verdict: NoJsonVerdict): void => {
    if (verdict.kind === 'json') clearTimeout(quiet);
    if (verdict.kind !== 'no-json' || reason !== null) return;
    reason = noJsonMessage(launch.program, expected, verdict.firstLine);
    clearTimeout(quiet);
    stop();
  };
  return {
    observe(line, truncated) {
      if (reason !== null) return;
      const verdict = check.observe(line, truncated);
      decide(verdict);
      // A few lines of text, then silence: the rest of the lines may never come.
      if (verdict.kind === 'undecided' && verdict.seenText && quiet === undefined) {
        quiet = setTimeout(() => decide(check.settle()), NO_JSON_QUIET_MS);
      }
    },
    end(cut) {
      clearTimeout(quiet);
      // Text only, then the program exited by itself: as wrong as one that goes on printing.
      if (reason === null && !cut) decide(check.settle());
      return reason;
    },
  };
}
