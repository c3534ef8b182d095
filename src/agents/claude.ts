import { createClaudeTranslator } from './claude-translator.js';
import { productName, programNotFound, vendorProgram, wrongProgramFix } from './programs.js';
import { runAgentProcess } from './run-agent-process.js';
import type { AgentBackend } from './types.js';

export const CLAUDE_ARGS = [
  '-p',
  '--output-format',
  'stream-json',
  '--verbose',
  '--dangerously-skip-permissions',
] as const;

/** A reviewer: plan mode reads and searches, and edits nothing. */
export const CLAUDE_READ_ONLY_ARGS = [
  '-p',
  '--output-format',
  'stream-json',
  '--verbose',
  '--permission-mode',
  'plan',
] as const;

/** Claude Code in print mode; the program is `$RALPHTOOL_CLAUDE_BIN`, else `claude` on PATH. */
export function createClaudeBackend(options: {
  model?: string | undefined;
  env: NodeJS.ProcessEnv;
}): AgentBackend {
  const { env } = options;
  const which = vendorProgram('claude', env);
  return {
    name: 'claude',
    runAttempt(request) {
      const model = request.model ?? options.model;
      return runAgentProcess(request, {
        program: which.program,
        args: [
          ...(request.readOnly === true ? CLAUDE_READ_ONLY_ARGS : CLAUDE_ARGS),
          ...(model ? ['--model', model] : []),
          // Claude Code stops itself once the attempt has spent this (after the API call that
          // crosses it), so that one attempt cannot overshoot the run's budget.
          ...(request.maxBudgetUsd !== undefined
            ? ['--max-budget-usd', request.maxBudgetUsd.toFixed(4)]
            : []),
        ],
        env,
        translator: createClaudeTranslator({ cwd: request.cwd }),
        notFoundMessage: `${programNotFound('claude', which)}.`,
        expects: {
          product: productName('claude'),
          flag: '--output-format stream-json',
          fix: wrongProgramFix('claude', which),
        },
      });
    },
  };
}
