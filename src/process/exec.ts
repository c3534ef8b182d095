import { execa } from 'execa';
import { ProcessError } from './process-error.js';
import { signalGroup, trackGroup, untrackGroup } from './process-group.js';

export interface ExecOptions {
  cwd: string;
  /** Variables added to (or, when undefined, removed from) the inherited environment. */
  env?: Record<string, string | undefined>;
  /** Wall-clock limit in milliseconds; 0 or undefined = none. */
  timeoutMs?: number;
  /** Aborting kills the process group. */
  signal?: AbortSignal;
  /** Written to stdin, which is then closed. Without it stdin is empty. */
  input?: string | Uint8Array;
  /** Time between SIGTERM and SIGKILL when the process group is stopped. */
  graceMs?: number;
  /** When false, a non-zero exit resolves instead of throwing. Default true. */
  reject?: boolean;
  /** Largest stdout/stderr kept, in bytes. */
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
}

const DEFAULT_GRACE_MS = 2_000;

/**
 * The one way ralphtool runs a program to completion: an argument array (never a
 * shell), its own process group, a timeout and a cancel signal that kill the whole
 * group (SIGTERM, then SIGKILL after a grace period), and a typed error.
 */
export async function execProgram(
  command: string,
  args: readonly string[],
  options: ExecOptions,
): Promise<ExecResult> {
  const env = buildEnv(options.env);
  const subprocess = execa(command, args, {
    cwd: options.cwd,
    env,
    extendEnv: false,
    detached: true,
    reject: false,
    stripFinalNewline: false,
    encoding: 'utf8',
    maxBuffer: options.maxBuffer ?? 256 * 1024 * 1024,
    ...(options.input === undefined ? { stdin: 'ignore' as const } : { input: options.input }),
  });

  const pgid = subprocess.pid;
  let timedOut = false;
  let aborted = false;
  const stop = (): void => {
    if (pgid === undefined) return;
    signalGroup(pgid, 'SIGTERM');
    setTimeout(() => signalGroup(pgid, 'SIGKILL'), options.graceMs ?? DEFAULT_GRACE_MS).unref();
  };
  const timer =
    options.timeoutMs && options.timeoutMs > 0
      ? setTimeout(() => {
          timedOut = true;
          stop();
        }, options.timeoutMs)
      : undefined;
  const onAbort = (): void => {
    aborted = true;
    stop();
  };
  if (options.signal?.aborted) onAbort();
  else options.signal?.addEventListener('abort', onAbort, { once: true });
  if (pgid !== undefined) trackGroup(pgid);

  try {
    const result = await subprocess;
    const notFound = (result.cause as NodeJS.ErrnoException | undefined)?.code === 'ENOENT';
    const outcome: ExecResult = {
      stdout: typeof result.stdout === 'string' ? result.stdout : '',
      stderr: typeof result.stderr === 'string' ? result.stderr : '',
      exitCode: result.exitCode ?? null,
      signal: result.signal ?? null,
      timedOut,
      aborted,
      notFound,
    };
    const failed = notFound || timedOut || aborted || outcome.exitCode !== 0;
    if (failed && (options.reject ?? true)) {
      throw new ProcessError({ command, args, ...outcome, notFound }, options.timeoutMs ?? 0);
    }
    return outcome;
  } finally {
    if (timer) clearTimeout(timer);
    options.signal?.removeEventListener('abort', onAbort);
    if (pgid !== undefined) untrackGroup(pgid);
  }
}

function buildEnv(overrides: ExecOptions['env']): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env)) {
    if (value !== undefined) env[key] = value;
  }
  for (const [key, value] of Object.entries(overrides ?? {})) {
    if (value === undefined) delete env[key];
    else env[key] = value;
  }
  return env;
}
