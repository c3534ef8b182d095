import { UsageError } from '../core/errors.js';
import { createClaudeBackend } from './claude.js';
import { createCodexBackend } from './codex.js';
import { createCommandBackend } from './command.js';
import { createGeminiBackend } from './gemini.js';
import { createOpenCodeBackend } from './opencode.js';
import type { AgentBackend } from './types.js';

export type AgentName = 'claude' | 'codex' | 'opencode' | 'gemini' | 'command';

export interface BackendOptions {
  agent: AgentName;
  /** Required for `command`: the program and its arguments as one command line. */
  agentCommand?: string | undefined;
  model?: string | undefined;
  /**
   * Where a relative program path in `agentCommand` (`./my-agent.sh`) is found: the directory
   * ralphtool was started in, or `-C`, as the user typed it there. Agents run in the repository
   * root, so the path is made absolute before they start.
   */
  baseDir: string;
}

/**
 * The backend for `--agent`. `env` is what agents inherit (and where RALPHTOOL_CLAUDE_BIN and
 * RALPHTOOL_OPENCODE_BIN are read): the CLI's, handed down from its CommandIO.
 */
export function createBackend(options: BackendOptions, env: NodeJS.ProcessEnv): AgentBackend {
  switch (options.agent) {
    case 'claude':
      return createClaudeBackend({ model: options.model, env });
    case 'codex':
      return createCodexBackend({ model: options.model, env });
    case 'opencode':
      return createOpenCodeBackend({ model: options.model, env });
    case 'gemini':
      return createGeminiBackend({ model: options.model, env });
    case 'command':
      if (options.agentCommand === undefined) {
        throw new UsageError(
          '--agent command needs --agent-command "<program> [args…]": the program to run.',
        );
      }
      return createCommandBackend({
        commandLine: options.agentCommand,
        env,
        baseDir: options.baseDir,
      });
  }
}

export type {
  AgentBackend,
  AgentEvent,
  AgentSandbox,
  AttemptOutput,
  AttemptRequest,
} from './types.js';
