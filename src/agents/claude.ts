import { createClaudeTranslator } from './claude-translator.js';
import { runAgentProcess } from './run-agent-process.js';
import type { AgentBackend } from './types.js';

export const CLAUDE_ARGS = [
  '-p',
  '--output-format',
  'stream-json',
  '--verbose',
  '--dangerously-skip-permissions',
] as const;
const INSTALL_HINT = 'install it with `npm install -g @anthropic-ai/claude-code`';

/** Claude Code in print mode; the program is `$RALPHTOOL_CLAUDE_BIN`, else `claude` on PATH. */
export function createClaudeBackend(
  options: { model?: string; env?: NodeJS.ProcessEnv } = {},
): AgentBackend {
  const env = options.env ?? process.env;
  const custom = env.RALPHTOOL_CLAUDE_BIN?.trim() || undefined;
  const program = custom ?? 'claude';
  const notFoundMessage = custom
    ? `RALPHTOOL_CLAUDE_BIN is set to \`${custom}\`, which was not found: fix or unset it, or ${INSTALL_HINT}.`
    : `Claude Code (\`claude\`) was not found on PATH: ${INSTALL_HINT}, or set RALPHTOOL_CLAUDE_BIN to its path.`;
  return {
    name: 'claude',
    runAttempt(request) {
      const model = request.model ?? options.model;
      return runAgentProcess(request, {
        program,
        args: [...CLAUDE_ARGS, ...(model ? ['--model', model] : [])],
        env,
        translator: createClaudeTranslator({ cwd: request.cwd }),
        notFoundMessage,
      });
    },
  };
}
