import { splitCommandLine } from '../../process/command-line.js';
import { execProgram, type ExecResult } from '../../process/exec.js';
import { tailLines } from '../../process/process-error.js';

export interface NotifyProgramRun {
  /** The `--notify` command line: split into words like `--verify`, never run by a shell. */
  commandLine: string;
  /** The event as one JSON line, written to the program's stdin. */
  payload: string;
  /** RALPHTOOL_EVENT, RALPHTOOL_CHANGE, RALPHTOOL_MESSAGE. */
  variables: Record<string, string>;
  /** Where it runs (and where a relative program path is taken from): where ralphtool was started. */
  cwd: string;
  baseEnv: NodeJS.ProcessEnv;
  timeoutMs: number;
}

/** What a notify program may print before it is stopped: it is read only for a failure's tail. */
const MAX_OUTPUT = 1024 * 1024;

/**
 * Runs one `--notify` program on one event, through the process layer (its own process group,
 * killed whole at the time limit). Never throws: resolves to null when it exited 0, else to
 * one line saying what went wrong. Only the program's name is shown, never its arguments,
 * which may carry a token.
 */
export async function runNotifyProgram(run: NotifyProgramRun): Promise<string | null> {
  let words: string[];
  try {
    words = splitCommandLine(run.commandLine, '--notify');
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
  const [program, ...args] = words;
  if (program === undefined) return '--notify: the command is empty';
  let result: ExecResult;
  try {
    result = await execProgram(program, args, {
      cwd: run.cwd,
      baseEnv: run.baseEnv,
      env: run.variables,
      input: run.payload,
      timeoutMs: run.timeoutMs,
      reject: false,
      maxBuffer: MAX_OUTPUT,
    });
  } catch (error) {
    // spawn refuses some arguments synchronously (a NUL byte): a failed delivery all the same.
    return `\`${program}\` could not be started: ${error instanceof Error ? error.message : String(error)}`;
  }
  return describeFailure(program, result, run.timeoutMs);
}

function describeFailure(program: string, r: ExecResult, timeoutMs: number): string | null {
  let what: string;
  if (r.notFound) what = `\`${program}\` was not found`;
  else if (r.spawnError) what = `\`${program}\` could not be started: ${r.spawnError}`;
  else if (r.timedOut)
    what = `\`${program}\` did not finish within ${seconds(timeoutMs)} and was killed`;
  else if (r.outputTooLarge) what = `\`${program}\` printed more than 1 MiB and was stopped`;
  else if (r.signal !== null) what = `\`${program}\` was killed by ${r.signal}`;
  else if (r.exitCode !== 0) what = `\`${program}\` failed with exit code ${String(r.exitCode)}`;
  else return null;
  const tail = tailLines(r.stderr, 3, 300).replace(/\n/g, ' | ');
  return tail ? `${what}: ${tail}` : what;
}

export function seconds(ms: number): string {
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${(ms / 1000).toFixed(1)}s`;
}
