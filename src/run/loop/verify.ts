import { agentEnvironment } from '../../core/agent-environment.js';
import { formatDuration } from '../../format/units.js';
import { splitCommandLine } from '../../process/command-line.js';
import { execProgram } from '../../process/exec.js';
import { tailLines } from '../../process/process-error.js';
import type { VerifyOutcome } from '../../core/verify-ratchet.js';

export interface VerifyFailure {
  command: string;
  reason: string;
}

/** What the gate found: every command that ran, and the failure that blocks, if any. */
export interface VerifyRun {
  outcomes: VerifyOutcome[];
  failure: VerifyFailure | null;
}

/**
 * Runs the user's `--verify` commands in the repository, one after the other, without a
 * shell, each limited to `timeoutMs` (`--verify-timeout`; 0 = no limit). A failure of a
 * command that `blocks` stops there (the rest do not run) and is returned (command, how it
 * failed, last lines of its output); a tolerated failure (the ratchet) is recorded and the
 * next command runs. A stop ends it early: check `signal.aborted`.
 */
export async function runVerifyCommands(
  commands: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  signal: AbortSignal,
  blocks: (command: string) => boolean = () => true,
): Promise<VerifyRun> {
  const outcomes: VerifyOutcome[] = [];
  for (const command of commands) {
    const [program, ...args] = splitCommandLine(command, '--verify');
    if (program === undefined) continue;
    const result = await execProgram(program, args, {
      cwd,
      // The verify commands run the agent's code: the agent's environment, no forge credentials.
      baseEnv: agentEnvironment(env).env,
      timeoutMs,
      signal,
      reject: false,
    });
    if (signal.aborted) return { outcomes, failure: null };
    outcomes.push({ command, passed: result.exitCode === 0 });
    if (result.exitCode === 0 || !blocks(command)) continue;
    const how = result.timedOut
      ? `timed out after ${formatDuration(timeoutMs)} (--verify-timeout)`
      : result.notFound
        ? 'could not be started (not found on PATH?)'
        : result.signal
          ? `was killed by ${result.signal}`
          : `exited with code ${String(result.exitCode)}`;
    const output = tailLines(`${result.stdout}\n${result.stderr}`, 30, 4_000);
    const failure = {
      command,
      reason: `\`${command}\` ${how}${output ? `; last lines of its output:\n${output}` : ''}`,
    };
    return { outcomes, failure };
  }
  return { outcomes, failure: null };
}
