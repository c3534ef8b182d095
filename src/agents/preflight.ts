import { accessSync, constants, existsSync, statSync } from 'node:fs';
import path from 'node:path';
import { RuntimeError } from '../core/errors.js';
import { splitCommandLine } from '../process/command-line.js';
import type { AgentName } from './index.js';
import { programNotFound, vendorProgram } from './programs.js';

/**
 * Checks that the agent's program can be found before the run touches git, so a
 * missing CLI costs nothing but a message (exit 1) instead of a started run.
 */
export function assertAgentAvailable(
  options: { agent: AgentName; agentCommand?: string },
  env: NodeJS.ProcessEnv,
  baseDir: string,
): void {
  const program =
    options.agent === 'command'
      ? (splitCommandLine(options.agentCommand ?? '')[0] ?? '')
      : vendorProgram(options.agent, env).program;
  const asPath = program.includes('/') ? path.resolve(baseDir, program) : null;
  if (asPath !== null && existsSync(asPath) && findProgram(asPath, env, baseDir) === null) {
    throw new RuntimeError(
      `the ${options.agent} agent program \`${program}\` is not an executable file: make it one (\`chmod +x ${asPath}\`) or start it through its interpreter (e.g. \`node ${program}\`)`,
    );
  }
  if (findProgram(program, env, baseDir) !== null) return;
  if (options.agent === 'command') {
    throw new RuntimeError(
      `the command agent program \`${program}\` was not found: check --agent-command`,
    );
  }
  throw new RuntimeError(programNotFound(options.agent, vendorProgram(options.agent, env)));
}

/** Resolves a program like the OS would (a path, or a search of PATH); null when absent. */
export function findProgram(program: string, env: NodeJS.ProcessEnv, cwd: string): string | null {
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
