import { createGeminiTranslator } from './gemini-translator.js';
import { productName, programNotFound, vendorProgram, wrongProgramFix } from './programs.js';
import { runAgentProcess } from './run-agent-process.js';
import type { AgentBackend } from './types.js';

/**
 * Gemini CLI in headless mode. `-p ""` makes it headless while the prompt comes on stdin (it
 * appends `-p` to what stdin holds), so no prompt is limited by the length of a command line.
 * `--approval-mode yolo` runs every tool without asking, and `--skip-trust` trusts the repository
 * for this run: in a folder it does not trust, Gemini CLI turns YOLO back into "ask", which in
 * headless mode cannot ask anyone.
 */
export const GEMINI_ARGS = [
  '-p',
  '',
  '--output-format',
  'stream-json',
  '--approval-mode',
  'yolo',
  '--skip-trust',
] as const;

/** Google's Gemini CLI (`gemini` on PATH). */
export function createGeminiBackend(options: {
  model?: string | undefined;
  env: NodeJS.ProcessEnv;
}): AgentBackend {
  const { env } = options;
  const which = vendorProgram('gemini', env);
  return {
    name: 'gemini',
    runAttempt(request) {
      const model = request.model ?? options.model;
      return runAgentProcess(request, {
        program: which.program,
        // A reviewer: the default approval mode, in which headless Gemini CLI runs no tool that
        // needs an approval (an edit, a shell command).
        args: [
          ...(request.readOnly === true
            ? GEMINI_ARGS.map((arg) => (arg === 'yolo' ? 'default' : arg))
            : GEMINI_ARGS),
          ...(model ? ['--model', model] : []),
        ],
        env,
        translator: createGeminiTranslator({ cwd: request.cwd }),
        notFoundMessage: `${programNotFound('gemini', which)}.`,
        expects: {
          product: productName('gemini'),
          flag: '--output-format stream-json',
          fix: wrongProgramFix('gemini', which),
        },
      });
    },
  };
}
