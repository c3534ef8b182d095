import { formatDuration } from '../format/units.js';
import { splitCommandLine } from '../process/command-line.js';
import { execProgram } from '../process/exec.js';
import { tailLines } from '../process/process-error.js';

export interface VerifyFailure {
  command: string;
  reason: string;
}

/**
 * Runs the user's `--verify` commands in the repository after the agent said
 * COMPLETE, without a shell, each limited to `timeoutMs` (`--verify-timeout`; 0 = no
 * limit). Returns the first failure (command, exit code, last lines of its output),
 * or null when all pass.
 */
export async function runVerifyCommands(
  commands: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  signal: AbortSignal,
): Promise<VerifyFailure | null> {
  for (const command of commands) {
    const [program, ...args] = splitCommandLine(command, '--verify');
    if (program === undefined) continue;
    const result = await execProgram(program, args, {
      cwd,
      baseEnv: env,
      timeoutMs,
      signal,
      reject: false,
    });
    if (signal.aborted) return null;
    if (result.exitCode === 0) continue;
    const how = result.timedOut
      ? `timed out after ${formatDuration(timeoutMs)} (--verify-timeout)`
      : result.notFound
        ? 'could not be started (not found on PATH?)'
        : result.signal
          ? `was killed by ${result.signal}`
          : `exited with code ${String(result.exitCode)}`;
    const output = tailLines(`${result.stdout}\n${result.stderr}`, 30, 4_000);
    return {
      command,
      reason: `\`${command}\` ${how}${output ? `; last lines of its output:\n${output}` : ''}`,
    };
  }
  return null;
}
