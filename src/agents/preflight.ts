import { accessSync, constants, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { RuntimeError } from '../core/errors.js';
import { splitCommandLine } from '../process/command-line.js';
import type { AgentName } from './index.js';

const INSTALL: Record<AgentName, string> = {
  claude:
    'install Claude Code with `npm install -g @anthropic-ai/claude-code` (or set RALPHTOOL_CLAUDE_BIN)',
  codex: 'install Codex with `npm install -g @openai/codex`',
  command: 'check --agent-command',
};

/**
 * Checks that the agent's program can be found before the run touches git, so a
 * missing CLI costs nothing but a message (exit 1) instead of a started run.
 */
export function assertAgentAvailable(
  options: { agent: AgentName; agentCommand?: string },
  env: NodeJS.ProcessEnv,
  baseDir = process.cwd(),
): void {
  const program = agentProgram(options, env);
  const asPath = program.includes('/') ? path.resolve(baseDir, program) : null;
  if (asPath !== null && existsSync(asPath) && findProgram(asPath, env) === null) {
    throw new RuntimeError(
      `the ${options.agent} agent program \`${program}\` is not an executable file: make it one (\`chmod +x ${asPath}\`) or start it through its interpreter (e.g. \`node ${program}\`)`,
    );
  }
  if (findProgram(program, env, baseDir) === null) {
    throw new RuntimeError(
      `the ${options.agent} agent program \`${program}\` was not found: ${INSTALL[options.agent]}`,
    );
  }
}

function agentProgram(
  options: { agent: AgentName; agentCommand?: string },
  env: NodeJS.ProcessEnv,
): string {
  switch (options.agent) {
    case 'claude':
      return env.RALPHTOOL_CLAUDE_BIN?.trim() || 'claude';
    case 'codex':
      return 'codex';
    case 'command':
      return splitCommandLine(options.agentCommand ?? '')[0] ?? '';
  }
}

/** Resolves a program like the OS would (a path, or a search of PATH); null when absent. */
export function findProgram(
  program: string,
  env: NodeJS.ProcessEnv,
  cwd = process.cwd(),
): string | null {
  if (program === '') return null;
  if (program.includes('/')) {
    const full = path.resolve(cwd, program);
    return isExecutableFile(full) ? full : null;
  }
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (dir === '') continue;
    const full = path.join(dir, program);
    if (isExecutableFile(full)) return full;
  }
  return null;
}

function isExecutableFile(file: string): boolean {
  try {
    if (!statSync(file).isFile()) return false;
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}
