import path from 'node:path';
import { UsageError } from '../core/errors.js';
import { splitCommandLine } from '../process/command-line.js';
import { createCommandTranslator } from './command-translator.js';
import { runAgentProcess } from './run-agent-process.js';
import type { AgentBackend } from './types.js';

/** Any program given with `--agent-command`: prompt on stdin and in RALPHTOOL_PROMPT_FILE. */
export function createCommandBackend(options: {
  commandLine: string;
  env: NodeJS.ProcessEnv;
  /** Where a relative program path is resolved from (see BackendOptions.baseDir). */
  baseDir: string;
}): AgentBackend {
  const [word, ...args] = splitCommandLine(options.commandLine);
  if (word === undefined) {
    throw new UsageError(
      '--agent-command is empty: give the program to run and its arguments, e.g. --agent-command "my-agent --fast".',
    );
  }
  const program = programPath(word, options.baseDir);
  const { env } = options;
  return {
    name: 'command',
    runAttempt(request) {
      return runAgentProcess(request, {
        program,
        args,
        env,
        translator: createCommandTranslator(),
        notFoundMessage: `The agent command \`${program}\` was not found: check --agent-command, or give the program's full path.`,
      });
    },
  };
}

/** A program given as a path (it has a slash) is taken from `baseDir`; a bare name from PATH. */
export function programPath(program: string, baseDir: string): string {
  return program.includes('/') ? path.resolve(baseDir, program) : program;
}
