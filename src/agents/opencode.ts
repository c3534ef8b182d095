import { createOpenCodeTranslator } from './opencode-translator.js';
import { productName, programNotFound, vendorProgram, wrongProgramFix } from './programs.js';
import { runAgentProcess } from './run-agent-process.js';
import type { AgentBackend } from './types.js';

/**
 * `opencode run` reads the prompt from stdin when no message is given; `--format json` prints
 * one JSON event a line; `--auto` approves every tool permission OpenCode's config does not
 * deny (without it a permission request is refused in `run`).
 */
export const OPENCODE_ARGS = ['run', '--format', 'json', '--auto'] as const;

/** OpenCode's non-interactive run; the program is `$RALPHTOOL_OPENCODE_BIN`, else `opencode`. */
export function createOpenCodeBackend(options: {
  model?: string | undefined;
  env: NodeJS.ProcessEnv;
}): AgentBackend {
  const { env } = options;
  const which = vendorProgram('opencode', env);
  return {
    name: 'opencode',
    runAttempt(request) {
      const model = request.model ?? options.model;
      const startedAt = Date.now();
      return runAgentProcess(request, {
        program: which.program,
        // OpenCode names a model `provider/model` (checked with the flags).
        // A reviewer goes without `--auto`: every permission request is refused in `run`.
        args: [
          ...(request.readOnly === true
            ? OPENCODE_ARGS.filter((arg) => arg !== '--auto')
            : OPENCODE_ARGS),
          ...(model ? ['-m', model] : []),
        ],
        // PWD is the repository's for every agent (run-agent-process.ts): OpenCode takes its
        // project directory from $PWD before its working directory.
        env,
        translator: createOpenCodeTranslator({
          cwd: request.cwd,
          elapsedMs: () => Date.now() - startedAt,
        }),
        notFoundMessage: `${programNotFound('opencode', which)}.`,
        expects: {
          product: productName('opencode'),
          flag: '--format json',
          fix: wrongProgramFix('opencode', which),
        },
      });
    },
  };
}
