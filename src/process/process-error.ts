/** Keeps the last lines of a process's stderr, short enough for a one-line message. */
export function tailLines(text: string, maxLines = 5, maxChars = 600): string {
  const lines = text.replace(/\r/g, '').split('\n');
  while (lines.length > 0 && lines[lines.length - 1]?.trim() === '') lines.pop();
  const tail = lines.slice(-maxLines).join('\n').trim();
  return tail.length > maxChars ? `…${tail.slice(tail.length - maxChars)}` : tail;
}

export interface ProcessFailure {
  command: string;
  args: readonly string[];
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  notFound: boolean;
  /** Why the program could not be started at all, when that was the failure. */
  spawnError?: string | null;
  /** The program printed more than the limit and was stopped for it. */
  outputTooLarge?: boolean;
  stdout: string;
  stderr: string;
}

/** A child process that failed: names the command, its exit status and the tail of stderr. */
export class ProcessError extends Error implements ProcessFailure {
  readonly command: string;
  readonly args: readonly string[];
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  readonly notFound: boolean;
  readonly spawnError: string | null;
  readonly outputTooLarge: boolean;
  readonly stdout: string;
  readonly stderr: string;

  constructor(failure: ProcessFailure, timeoutMs: number) {
    super(describeFailure(failure, timeoutMs));
    this.name = 'ProcessError';
    this.command = failure.command;
    this.args = failure.args;
    this.exitCode = failure.exitCode;
    this.signal = failure.signal;
    this.timedOut = failure.timedOut;
    this.aborted = failure.aborted;
    this.notFound = failure.notFound;
    this.spawnError = failure.spawnError ?? null;
    this.outputTooLarge = failure.outputTooLarge ?? false;
    this.stdout = failure.stdout;
    this.stderr = failure.stderr;
  }

  get stderrTail(): string {
    return tailLines(this.stderr);
  }
}

function describeFailure(f: ProcessFailure, timeoutMs: number): string {
  const shown = [f.command, ...f.args].map(quoteArg).join(' ');
  const short = shown.length > 200 ? `${shown.slice(0, 200)}…` : shown;
  let what: string;
  if (f.notFound) what = `\`${f.command}\` was not found on PATH`;
  else if (f.spawnError) what = `\`${f.command}\` could not be started: ${f.spawnError}`;
  else if (f.outputTooLarge)
    what = `\`${short}\` printed more than ralphtool keeps and was stopped`;
  else if (f.timedOut) what = `\`${short}\` timed out after ${Math.round(timeoutMs / 1000)}s`;
  else if (f.aborted) what = `\`${short}\` was stopped`;
  else if (f.signal) what = `\`${short}\` was killed by ${f.signal}`;
  else what = `\`${short}\` failed with exit code ${String(f.exitCode)}`;
  const tail = tailLines(f.stderr, 3, 400).replace(/\n/g, ' | ');
  return tail ? `${what}: ${tail}` : what;
}

function quoteArg(arg: string): string {
  return /^[\w./:=@%+-]+$/.test(arg) ? arg : JSON.stringify(arg);
}
