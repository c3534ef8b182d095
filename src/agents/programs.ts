import type { AgentName } from './index.js';

/**
 * Where each vendor's agent CLI is looked for and how to install it: the one source for the
 * backends that start them, the check before a run, and `ralphtool doctor`.
 */

/** Names the Claude Code program to use instead of `claude` on PATH. */
export const CLAUDE_BIN_VARIABLE = 'RALPHTOOL_CLAUDE_BIN';

export interface AgentProgram {
  /** As looked for: a name searched on PATH, or a path. */
  program: string;
  /** The environment variable it was taken from, when it was. */
  fromEnv: string | null;
}

type VendorAgent = Exclude<AgentName, 'command'>;

/** The program of a vendor agent: Claude Code is `$RALPHTOOL_CLAUDE_BIN` when set, else `claude`. */
export function vendorProgram(agent: VendorAgent, env: NodeJS.ProcessEnv): AgentProgram {
  if (agent === 'codex' || agent === 'gemini') return { program: agent, fromEnv: null };
  const custom = env[CLAUDE_BIN_VARIABLE]?.trim();
  return custom
    ? { program: custom, fromEnv: CLAUDE_BIN_VARIABLE }
    : { program: 'claude', fromEnv: null };
}

const PRODUCT: Record<VendorAgent, { name: string; install: string }> = {
  claude: { name: 'Claude Code', install: 'npm install -g @anthropic-ai/claude-code' },
  codex: { name: 'Codex', install: 'npm install -g @openai/codex' },
  gemini: { name: 'Gemini CLI', install: 'npm install -g @google/gemini-cli' },
};

/** The agent's product name (`Claude Code` for claude); a backend ralphtool has no name for, as is. */
export function productName(agent: string): string {
  return agent in PRODUCT ? PRODUCT[agent as VendorAgent].name : agent;
}

/** How to install a vendor agent's CLI, e.g. "install Codex with `npm install -g @openai/codex`". */
export function installHint(agent: VendorAgent): string {
  return `install ${PRODUCT[agent].name} with \`${PRODUCT[agent].install}\``;
}

/** What to tell the user when a vendor agent's program is not there, and how to fix it. */
export function programNotFound(agent: VendorAgent, which: AgentProgram): string {
  if (which.fromEnv !== null) {
    return `${which.fromEnv} is set to \`${which.program}\`, which was not found: fix or unset it, or ${installHint(agent)}`;
  }
  const orVariable = agent === 'claude' ? `, or set ${CLAUDE_BIN_VARIABLE} to its path` : '';
  return `${PRODUCT[agent].name} (\`${which.program}\`) was not found on PATH: ${installHint(agent)}${orVariable}`;
}

/**
 * What to do when the program printed no JSON (not the agent's CLI, or too old a version): the
 * end of the message of run-agent-process.ts.
 */
export function wrongProgramFix(agent: VendorAgent, which: AgentProgram): string {
  const variable =
    agent !== 'claude'
      ? ''
      : which.fromEnv !== null
        ? `, or point ${which.fromEnv} at it`
        : `, or set ${CLAUDE_BIN_VARIABLE} to its path`;
  return `Check \`${which.program} --version\`; ${installHint(agent)}${variable}.`;
}
