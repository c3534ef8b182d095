import type { AgentName } from './index.js';

/**
 * Where each vendor's agent CLI is looked for and how to install it: the one source for the
 * backends that start them, the check before a run, and `ralphtool doctor`.
 */

/** Names the Claude Code program to use instead of `claude` on PATH. */
export const CLAUDE_BIN_VARIABLE = 'RALPHTOOL_CLAUDE_BIN';
/** Names the Codex program to use instead of `codex` on PATH. */
export const CODEX_BIN_VARIABLE = 'RALPHTOOL_CODEX_BIN';

export interface AgentProgram {
  /** As looked for: a name searched on PATH, or a path. */
  program: string;
  /** The environment variable it was taken from, when it was. */
  fromEnv: string | null;
}

type VendorAgent = Exclude<AgentName, 'command'>;

/**
 * The program of a vendor agent: `$RALPHTOOL_CLAUDE_BIN` / `$RALPHTOOL_CODEX_BIN` when set, else
 * `claude` / `codex` on PATH.
 */
export function vendorProgram(agent: VendorAgent, env: NodeJS.ProcessEnv): AgentProgram {
  const variable = agent === 'codex' ? CODEX_BIN_VARIABLE : CLAUDE_BIN_VARIABLE;
  const custom = env[variable]?.trim();
  return custom ? { program: custom, fromEnv: variable } : { program: agent, fromEnv: null };
}

const PRODUCT: Record<VendorAgent, { name: string; install: string }> = {
  claude: { name: 'Claude Code', install: 'npm install -g @anthropic-ai/claude-code' },
  codex: { name: 'Codex', install: 'npm install -g @openai/codex' },
};

/** How to install a vendor agent's CLI, e.g. "install Codex with `npm install -g @openai/codex`". */
export function installHint(agent: VendorAgent): string {
  return `install ${PRODUCT[agent].name} with \`${PRODUCT[agent].install}\``;
}

/** What to tell the user when a vendor agent's program is not there, and how to fix it. */
export function programNotFound(agent: VendorAgent, which: AgentProgram): string {
  if (which.fromEnv !== null) {
    return `${which.fromEnv} is set to \`${which.program}\`, which was not found: fix or unset it, or ${installHint(agent)}`;
  }
  const variable = agent === 'codex' ? CODEX_BIN_VARIABLE : CLAUDE_BIN_VARIABLE;
  const orVariable = `, or set ${variable} to its path`;
  return `${PRODUCT[agent].name} (\`${which.program}\`) was not found on PATH: ${installHint(agent)}${orVariable}`;
}
