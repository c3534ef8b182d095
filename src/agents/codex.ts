import { createCodexTranslator } from './codex-translator.js';
import { productName, programNotFound, vendorProgram, wrongProgramFix } from './programs.js';
import { runAgentProcess } from './run-agent-process.js';
import type { AgentBackend } from './types.js';

/** OpenAI Codex CLI in non-interactive mode, reading the prompt from stdin (`-`). */
export function createCodexBackend(options: {
  model?: string | undefined;
  env: NodeJS.ProcessEnv;
}): AgentBackend {
  const { env } = options;
  const which = vendorProgram('codex', env);
  return {
    name: 'codex',
    runAttempt(request) {
      const model = request.model ?? options.model;
      const startedAt = Date.now();
      return runAgentProcess(request, {
        program: which.program,
        args: [
          'exec',
          '--json',
          // A reviewer reads only (docs/contract.md, "The review").
          ...(request.readOnly === true
            ? ['--sandbox', 'read-only']
            : ['--dangerously-bypass-approvals-and-sandbox']),
          ...(model ? ['-m', model] : []),
          '-',
        ],
        env,
        translator: createCodexTranslator({ elapsedMs: () => Date.now() - startedAt }),
        notFoundMessage: `${programNotFound('codex', which)}.`,
        expects: {
          product: productName('codex'),
          flag: 'exec --json',
          fix: wrongProgramFix('codex', which),
        },
      });
    },
  };
}
