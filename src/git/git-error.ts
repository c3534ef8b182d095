import { RalphError } from '../core/errors.js';

export interface GitFailure {
  /** The git arguments, without the `-c` options ralphtool adds to every call. */
  args: readonly string[];
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  stderr: string;
  timeoutMs: number;
}

/** A git command that failed: names the command, exit status, the tail of stderr and what to check. */
export class GitError extends RalphError {
  readonly args: readonly string[];
  readonly gitExitCode: number | null;
  readonly timedOut: boolean;
  readonly aborted: boolean;
  readonly stderr: string;

  constructor(failure: GitFailure, context?: string) {
    super(describeGitFailure(failure, context), 1);
    this.args = failure.args;
    this.gitExitCode = failure.exitCode;
    this.timedOut = failure.timedOut;
    this.aborted = failure.aborted;
    this.stderr = failure.stderr;
  }
}

function describeGitFailure(f: GitFailure, context: string | undefined): string {
  const shown = ['git', ...f.args].map(quoteArg).join(' ');
  const command = shown.length > 160 ? `${shown.slice(0, 160)}…` : shown;
  let what: string;
  if (f.timedOut) what = `\`${command}\` timed out after ${Math.round(f.timeoutMs / 1000)}s`;
  else if (f.aborted) what = `\`${command}\` was stopped`;
  else if (f.signal) what = `\`${command}\` was killed by ${f.signal}`;
  else what = `\`${command}\` failed with exit code ${String(f.exitCode)}`;
  const prefix = context ? `${context}: ` : '';
  const tail = oneLineTail(f.stderr);
  const hint = hintFor(f);
  return `${prefix}${what}${tail ? `: ${tail}` : ''}${hint ? ` (${hint})` : ''}`;
}

/**
 * git's own verdict (`fatal:`/`error:` lines) or else the last stderr lines, joined into one
 * line so that a message stays one line; explanations and hints after the verdict are dropped.
 */
function oneLineTail(stderr: string): string {
  const lines = stderr
    .replace(/\r/g, '')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('hint:'));
  const verdicts = lines.filter((line) => /^(fatal|error):/.test(line));
  const tail = (verdicts.length > 0 ? verdicts : lines).slice(-3).join(' | ');
  return tail.length > 400 ? `…${tail.slice(tail.length - 400)}` : tail;
}

function hintFor(f: GitFailure): string | undefined {
  if (f.timedOut) return 'a slow disk or a large repository: raise --command-timeout';
  if (f.aborted) return undefined;
  const err = f.stderr;
  if (/index\.lock|\.lock': File exists/.test(err)) {
    return 'another git process seems to be running; if none is, remove the .lock file named above';
  }
  if (/not a git repository/i.test(err)) return 'run ralphtool inside a git repository';
  if (/Please tell me who you are|empty ident/i.test(err)) {
    return 'set user.name and user.email with `git config`';
  }
  if (/would be overwritten|local changes/i.test(err)) {
    return 'commit or stash your changes first';
  }
  if (/CONFLICT|unmerged|needs merge/i.test(err))
    return 'resolve the conflict shown by `git status`';
  if (/Permission denied/i.test(err)) return 'check the file permissions in the repository';
  if (/No space left/i.test(err)) return 'free some disk space';
  return 'run `git status` to see the repository state';
}

function quoteArg(arg: string): string {
  return /^[\w./:=@%+^~-]+$/.test(arg) ? arg : JSON.stringify(arg);
}
