import type { Readable } from 'node:stream';
import { ABORTED_BEFORE_START, startChild, type ChildEnd } from './lifecycle.js';
import { ProcessError } from './process-error.js';

export interface ExecOptions {
  cwd: string;
  /**
   * The environment `env` is laid over: the one the command was given (CommandIO's), passed
   * down by the caller, so that nothing below the CLI reads ralphtool's own environment.
   */
  baseEnv: NodeJS.ProcessEnv;
  /** Variables added to (or, when undefined, removed from) `baseEnv`. */
  env?: Record<string, string | undefined>;
  /** Wall-clock limit in milliseconds; 0 or undefined = none. */
  timeoutMs?: number;
  /** Aborting kills the process group; a signal aborted already starts nothing. */
  signal?: AbortSignal;
  /** Written to stdin, which is then closed. Without it stdin is empty. */
  input?: string | Uint8Array;
  /** Time between SIGTERM and SIGKILL when the process group is stopped (lifecycle GRACE_MS). */
  graceMs?: number;
  /** When false, a non-zero exit resolves instead of throwing. Default true. */
  reject?: boolean;
  /** Largest stdout/stderr kept, in bytes; a program that prints more is stopped. */
  maxBuffer?: number;
}

export interface ExecResult {
  stdout: string;
  stderr: string;
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  aborted: boolean;
  /** The program could not be found (ENOENT). */
  notFound: boolean;
  /**
   * Why the program could not be started at all (not found, not executable…), else null.
   * Optional only so that results built by hand elsewhere stay valid; execProgram sets it.
   */
  spawnError?: string | null;
  /** stdout or stderr went past `maxBuffer`, so the program was stopped. Set like spawnError. */
  outputTooLarge?: boolean;
}

const DEFAULT_MAX_BUFFER = 256 * 1024 * 1024;

/**
 * The most a program asked for a short answer (a version line, a login status, a probe) may
 * print: past it the program is stopped. A wrong program in its place (a stand-in, a wrapper
 * that runs the whole agent) could otherwise print hundreds of megabytes into ralphtool's memory
 * before a run even starts.
 */
export const SHORT_ANSWER_MAX_BUFFER = 64 * 1024;

/**
 * The one way ralphtool runs a program to completion and reads all it printed, on the
 * child lifecycle (lifecycle.ts): an argument array (never a shell), its own process group,
 * a timeout and a cancel signal that stop the whole group, and a typed error.
 */
export async function execProgram(
  command: string,
  args: readonly string[],
  options: ExecOptions,
): Promise<ExecResult> {
  let end: ChildEnd = ABORTED_BEFORE_START;
  let stdout = '';
  let stderr = '';
  let outputTooLarge = false;
  if (!options.signal?.aborted) {
    const child = startChild(command, args, {
      cwd: options.cwd,
      env: buildEnv(options.baseEnv, options.env),
      input: options.input,
      wallTimeoutMs: options.timeoutMs,
      signal: options.signal,
      graceMs: options.graceMs,
    });
    const overflow = (): void => {
      outputTooLarge = true;
      child.stop();
    };
    const maxBuffer = options.maxBuffer ?? DEFAULT_MAX_BUFFER;
    const readStdout = collect(child.stdout, maxBuffer, overflow);
    const readStderr = collect(child.stderr, maxBuffer, overflow);
    end = await child.ended;
    stdout = readStdout();
    stderr = readStderr();
  }

  const outcome: ExecResult = {
    stdout,
    stderr,
    exitCode: end.exitCode,
    signal: end.signal,
    timedOut: end.timedOut !== null,
    aborted: end.aborted,
    notFound: end.spawnError?.code === 'ENOENT',
    spawnError: end.spawnError?.message ?? null,
    outputTooLarge,
  };
  const failed =
    end.spawnError !== null ||
    outputTooLarge ||
    outcome.timedOut ||
    outcome.aborted ||
    outcome.exitCode !== 0;
  if (failed && (options.reject ?? true)) {
    throw new ProcessError({ command, args, ...outcome }, options.timeoutMs ?? 0);
  }
  return outcome;
}

/** Keeps up to `limit` bytes of a stream; `onOverflow` is told once when it prints more. */
function collect(stream: Readable, limit: number, onOverflow: () => void): () => string {
  const chunks: Buffer[] = [];
  let size = 0;
  let full = false;
  stream.on('data', (chunk: Buffer) => {
    if (full) return;
    const room = limit - size;
    if (chunk.length > room) {
      full = true;
      chunks.push(chunk.subarray(0, room));
      size = limit;
      onOverflow();
      return;
    }
    chunks.push(chunk);
    size += chunk.length;
  });
  return () => Buffer.concat(chunks, size).toString('utf8');
}

/** A child's whole environment: `base` with `overrides` laid over it (undefined removes). */
export function buildEnv(
  base: NodeJS.ProcessEnv,
  overrides: ExecOptions['env'],
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(base)) {
    if (value !== undefined) env[key] = value;
  }
  for (const [key, value] of Object.entries(overrides ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}
