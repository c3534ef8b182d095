import { agentEnvironment } from '../../core/agent-environment.js';
import { noTestsRan, noTestsReason } from '../../core/no-tests-ran.js';
import { formatDuration } from '../../format/units.js';
import { splitCommandLine } from '../../process/command-line.js';
import { execProgram } from '../../process/exec.js';
import { tailLines } from '../../process/process-error.js';
import type { VerifyOutcome } from '../../core/verify-ratchet.js';

export interface VerifyFailure {
  command: string;
  reason: string;
}

/** A command that failed and passed when run again: not the attempt's fault, but counted. */
export interface FlakyVerify {
  command: string;
  /** How its first run failed. */
  firstFailure: string;
}

/** What the gate found: every command that ran, the failure that blocks, if any, and the flakes. */
export interface VerifyRun {
  outcomes: VerifyOutcome[];
  failure: VerifyFailure | null;
  flaky: FlakyVerify[];
}

/** One run of one command, judged. */
interface VerifyTry {
  passed: boolean;
  /** Why it did not pass; empty when it passed. */
  reason: string;
  /** A failure a second run could turn into a pass: not a timeout, a missing program or no tests. */
  mayFlake: boolean;
}

/**
 * Runs the user's `--verify` commands in the repository, one after the other, without a
 * shell, each limited to `timeoutMs` (`--verify-timeout`; 0 = no limit). A command that ran
 * no test does not pass (core/no-tests-ran.ts). With `rerun` (an attempt's gate, not the
 * baseline), a failure that blocks is run once more before it is judged: a pass then is a
 * flake, recorded and not held against the attempt. A failure that still blocks stops there
 * (the rest do not run) and is returned (command, how it failed, last lines of its output); a
 * tolerated failure (the ratchet) is recorded and the next command runs. A stop ends it early:
 * check `signal.aborted`.
 */
export async function runVerifyCommands(
  commands: readonly string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
  timeoutMs: number,
  signal: AbortSignal,
  blocks: (command: string) => boolean = () => true,
  rerun = false,
): Promise<VerifyRun> {
  const outcomes: VerifyOutcome[] = [];
  const flaky: FlakyVerify[] = [];
  const once = (command: string, words: string[]): Promise<VerifyTry> =>
    runOnce(command, words, { cwd, env, timeoutMs, signal });
  for (const command of commands) {
    const words = splitCommandLine(command, '--verify');
    if (words.length === 0) continue;
    let run = await once(command, words);
    if (signal.aborted) return { outcomes, failure: null, flaky };
    if (!run.passed && rerun && run.mayFlake && blocks(command)) {
      const again = await once(command, words);
      if (signal.aborted) return { outcomes, failure: null, flaky };
      if (again.passed) {
        flaky.push({ command, firstFailure: run.reason });
        outcomes.push({ command, passed: true, flaky: true });
        continue;
      }
      run = { ...again, reason: `${again.reason} (it failed when run again too)` };
    }
    outcomes.push({ command, passed: run.passed });
    if (run.passed || !blocks(command)) continue;
    return { outcomes, failure: { command, reason: run.reason }, flaky };
  }
  return { outcomes, failure: null, flaky };
}

async function runOnce(
  command: string,
  [program = '', ...args]: string[],
  how: { cwd: string; env: NodeJS.ProcessEnv; timeoutMs: number; signal: AbortSignal },
): Promise<VerifyTry> {
  const result = await execProgram(program, args, {
    cwd: how.cwd,
    // The verify commands run the agent's code: the agent's environment, no forge credentials.
    baseEnv: agentEnvironment(how.env).env,
    timeoutMs: how.timeoutMs,
    signal: how.signal,
    reject: false,
  });
  const printed = `${result.stdout}\n${result.stderr}`;
  const noTests = result.timedOut ? null : noTestsRan(command, result.exitCode, printed);
  if (result.exitCode === 0 && noTests === null)
    return { passed: true, reason: '', mayFlake: false };
  const output = tailLines(printed, 30, 4_000);
  const lastLines = output ? `; last lines of its output:\n${output}` : '';
  if (result.exitCode === 0 && noTests !== null) {
    return {
      passed: false,
      reason: `${noTestsReason(command, noTests)}${lastLines}`,
      mayFlake: false,
    };
  }
  const failed = result.timedOut
    ? `timed out after ${formatDuration(how.timeoutMs)} (--verify-timeout)`
    : result.notFound
      ? 'could not be started (not found on PATH?)'
      : result.signal
        ? `was killed by ${result.signal}`
        : `exited with code ${String(result.exitCode)}`;
  const none = noTests === null ? '' : ` and ran no test (${noTests})`;
  return {
    passed: false,
    reason: `\`${command}\` ${failed}${none}${lastLines}`,
    mayFlake: !result.timedOut && !result.notFound && noTests === null,
  };
}
