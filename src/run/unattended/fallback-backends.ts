import { createBackend } from '../../agents/index.js';
import { assertRunPreflight } from '../../agents/preflight.js';
import type { AgentBackend } from '../../agents/types.js';
import type { AgentSlot } from '../../core/agent-choice.js';
import { RuntimeError, UsageError } from '../../core/errors.js';
import { AGENT_KINDS, type RunOptions } from '../options.js';

/**
 * The backends of fallback agents: the program checked first (exit 1 when it is missing), the
 * model the fallback's own, `--agent-command` for a `command` fallback.
 */
export function fallbackBackends(
  options: RunOptions,
  env: NodeJS.ProcessEnv,
  baseDir: string,
): (slot: AgentSlot) => AgentBackend {
  return (slot) => {
    const agent = AGENT_KINDS.find((kind) => kind === slot.agent);
    if (agent === undefined) {
      throw new RuntimeError(
        `the run's fallback agent ${slot.agent} is not one this ralphtool knows (${AGENT_KINDS.join(', ')}): resume with --fallback-agent naming the ones to use`,
      );
    }
    const agentCommand = options.agentCommand ?? undefined;
    if (agent === 'command' && agentCommand === undefined) {
      throw new UsageError(
        'the run\'s fallback agent command needs --agent-command "<program> [args]" (a resume keeps the fallback agents, not the command line)',
      );
    }
    const which = { agent, ...(agent === 'command' && agentCommand ? { agentCommand } : {}) };
    assertRunPreflight({ ...which, verify: [] }, env, baseDir);
    return createBackend(
      { ...which, ...(slot.model !== null ? { model: slot.model } : {}), baseDir },
      env,
    );
  };
}
