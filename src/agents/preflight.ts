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

/**
 * Everything about a run's programs that is known before it starts, checked before it touches
 * git (exit 1): the agent program, Claude Code's refusal to run as root, and `--verify`
 * programs given by a bare name that PATH does not have. (A relative verify path is not
 * checked: the run itself may create it, e.g. a story that adds the test script.)
 */
export function assertRunPreflight(
  options: { agent: AgentName; agentCommand?: string; verify: readonly string[] },
  env: NodeJS.ProcessEnv,
  baseDir: string,
): void {
  assertAgentAvailable(options, env, baseDir);
  if (options.agent === 'claude' && claudeRefusesRoot(env)) {
    throw new RuntimeError(
      'Claude Code refuses --dangerously-skip-permissions as root, so every attempt would fail: set IS_SANDBOX=1 if this machine is a sandbox (container, VM), or run ralphtool as a normal user',
    );
  }
  for (const command of options.verify) {
    const program = splitCommandLine(command, '--verify')[0] ?? '';
    if (program.includes('/') || findProgram(program, env, baseDir) !== null) continue;
    throw new RuntimeError(
      `the --verify program \`${program}\` was not found on PATH: install it, or check --verify ${JSON.stringify(command)}`,
    );
  }
}

/**
 * Claude Code's own rule (it prints "--dangerously-skip-permissions cannot be used with
 * root/sudo privileges"): root, unless IS_SANDBOX is exactly "1" or CLAUDE_CODE_BUBBLEWRAP is set.
 */
export function claudeRefusesRoot(env: NodeJS.ProcessEnv): boolean {
  return (
    process.getuid?.() === 0 && env.IS_SANDBOX !== '1' && (env.CLAUDE_CODE_BUBBLEWRAP ?? '') === ''
  );
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
