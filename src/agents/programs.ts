import type { AgentName } from './index.js';

/**
 * Where each vendor's agent CLI is looked for and how to install it: the one source for the
 * backends that start them, the check before a run, and `ralphtool doctor`.
 */

/** Names the Claude Code program to use instead of `claude` on PATH. */
export const CLAUDE_BIN_VARIABLE = 'RALPHTOOL_CLAUDE_BIN';
/** Names the Codex program to use instead of `codex` on PATH. */
export const CODEX_BIN_VARIABLE = 'RALPHTOOL_CODEX_BIN';
/** Names the OpenCode program to use instead of `opencode` on PATH. */
export const OPENCODE_BIN_VARIABLE = 'RALPHTOOL_OPENCODE_BIN';
/** Names the Gemini CLI program to use instead of `gemini` on PATH. */
export const GEMINI_BIN_VARIABLE = 'RALPHTOOL_GEMINI_BIN';

export interface AgentProgram {
  /** As looked for: a name searched on PATH, or a path. */
  program: string;
  /** The environment variable it was taken from, when it was. */
  fromEnv: string | null;
}

export type VendorAgent = Exclude<AgentName, 'command'>;

const PRODUCT: Record<
  VendorAgent,
  { name: string; program: string; install: string; variable: string | null }
> = {
  claude: {
    name: 'Claude Code',
    program: 'claude',
    install: 'npm install -g @anthropic-ai/claude-code',
    variable: CLAUDE_BIN_VARIABLE,
  },
  codex: {
    name: 'Codex',
    program: 'codex',
    install: 'npm install -g @openai/codex',
    variable: CODEX_BIN_VARIABLE,
  },
  opencode: {
    name: 'OpenCode',
    program: 'opencode',
    install: 'npm install -g opencode-ai',
    variable: OPENCODE_BIN_VARIABLE,
  },
  gemini: {
    name: 'Gemini CLI',
    program: 'gemini',
    install: 'npm install -g @google/gemini-cli',
    variable: GEMINI_BIN_VARIABLE,
  },
};

/**
 * The program of a vendor agent: `$RALPHTOOL_<AGENT>_BIN` (`RALPHTOOL_CLAUDE_BIN`, …) when set,
 * else its name on PATH (`claude`, `codex`, `opencode`, `gemini`).
 */
export function vendorProgram(agent: VendorAgent, env: NodeJS.ProcessEnv): AgentProgram {
  const { program, variable } = PRODUCT[agent];
  const custom = variable === null ? undefined : env[variable]?.trim();
  return custom ? { program: custom, fromEnv: variable } : { program, fromEnv: null };
}

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
  const variable = PRODUCT[agent].variable;
  const orVariable = variable === null ? '' : `, or set ${variable} to its path`;
  return `${PRODUCT[agent].name} (\`${which.program}\`) was not found on PATH: ${installHint(agent)}${orVariable}`;
}

/**
 * What to do when the program printed no JSON (not the agent's CLI, or too old a version): the
 * end of the message of run-agent-process.ts.
 */
export function wrongProgramFix(agent: VendorAgent, which: AgentProgram): string {
  const named = PRODUCT[agent].variable;
  const variable =
    named === null
      ? ''
      : which.fromEnv !== null
        ? `, or point ${which.fromEnv} at it`
        : `, or set ${named} to its path`;
  return `Check \`${which.program} --version\`; ${installHint(agent)}${variable}.`;
}
