import { mkdir, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { RuntimeError } from '../core/errors.js';
import type { StrayProcess } from '../process/descendants.js';
import { streamProcess } from '../process/stream.js';
import type { AgentEvent, AttemptOutput, AttemptRequest, StreamTranslator } from './types.js';

export interface AgentLaunch {
  program: string;
  args: readonly string[];
  /** The environment the agent inherits, before ralphtool's own variables are added. */
  env: NodeJS.ProcessEnv;
  translator: StreamTranslator;
  /** What to tell the user when the program does not exist (how to install or fix it). */
  notFoundMessage: string;
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

  const result = await streamProcess(launch.program, launch.args, {
    cwd: request.cwd,
    env: {
      ...launch.env,
      RALPHTOOL_PROMPT_FILE: request.promptFilePath,
      RALPHTOOL_CHANGE: request.change,
      RALPHTOOL_STORY_ID: request.storyId,
      RALPHTOOL_ATTEMPT: String(request.attempt),
    },
    input: request.prompt,
    signal: AbortSignal.any([request.signal, giveUp.signal]),
    wallTimeoutMs: request.wallTimeoutMs,
    idleTimeoutMs: request.idleTimeoutMs,
    transcriptPath: request.transcriptPath,
    ...(request.onSpawn ? { onSpawn: request.onSpawn } : {}),
    // Agents start dev servers and watchers; none may outlive the attempt or write into the next.
    watchDescendants: true,
    onLine: (line, truncated) => launch.translator.push(line, truncated).forEach(deliver),
    isProgress: launch.translator.isProgress?.bind(launch.translator),
  });

  if (result.strays.length > 0)
    deliver({ type: 'error', message: straysNotice(result.strays), fatal: false });

  if (result.notFound) throw new RuntimeError(launch.notFoundMessage);
  if (result.spawnError) {
    throw new RuntimeError(`Could not start \`${launch.program}\`: ${result.spawnError}`);
  }

  const outcome = launch.translator.finish(result.stderrTail, result.exitCode);
  return {
    finalAnswer: outcome.finalAnswer,
    exitCode: result.exitCode,
    signal: result.signal,
    timedOut: result.timedOut,
    aborted: result.aborted && request.signal.aborted,
    stderrTail: result.stderrTail,
    agentError: outcome.agentError,
    fatal: outcome.fatal,
    limit: outcome.limit ?? null,
    budgetReached: outcome.budgetReached ?? null,
  };
}

/** Names what the agent left running outside its process group, which ralphtool killed. */
function straysNotice(strays: readonly StrayProcess[]): string {
  const named = strays.map((s) => `${s.pid} (${s.command})`).join(', ');
  return `killed ${strays.length} process(es) the agent left running outside its process group: ${named}`;
}
