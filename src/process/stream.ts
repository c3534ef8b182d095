import { createWriteStream, type WriteStream } from 'node:fs';
import type { StrayProcess } from './descendants.js';
import { ABORTED_BEFORE_START, startChild, type ChildEnd } from './lifecycle.js';

export interface StreamOptions {
  cwd: string;
  /** The child's whole environment: nothing is inherited that is not in it. */
  env: NodeJS.ProcessEnv;
  /** Written to stdin, which is then closed. Without it stdin is empty. */
  input?: string;
  /**
   * Called once per stdout line (without its newline); `truncated` when the line was cut.
   * If it throws, the program is stopped and streamProcess rejects with that error.
   */
  onLine: (line: string, truncated: boolean) => void;
  /** Wall-clock limit in milliseconds; 0 or undefined = none. */
  wallTimeoutMs?: number | undefined;
  /** Limit on time without any stdout/stderr output; 0 or undefined = none. */
  idleTimeoutMs?: number | undefined;
  /**
   * When given, only the stdout lines it calls progress reset the idle timer (a retry notice
   * repeated forever must not keep an agent alive); stderr still does.
   */
  isProgress?: ((line: string) => boolean) | undefined;
  /** Aborting kills the process group; a signal aborted already starts nothing. */
  signal?: AbortSignal | undefined;
  /** Time between SIGTERM and SIGKILL when the process group is stopped (lifecycle GRACE_MS). */
  graceMs?: number | undefined;
  /** Longest line delivered whole, in bytes; the rest of a longer line is dropped. */
  maxLineBytes?: number;
  /** How much of the end of stderr is kept, in bytes. */
  stderrTailBytes?: number;
  /** When set, raw stdout and stderr are appended to this file as they arrive. */
  transcriptPath?: string;
  /** Told the process group id once the program started (recorded so a crash can kill it later). */
  onSpawn?: (pgid: number) => void;
  /** Also find and kill what the program starts outside its process group (lifecycle.ts). */
  watchDescendants?: boolean;
}

export interface StreamResult {
  exitCode: number | null;
  signal: string | null;
  timedOut: 'wall' | 'idle' | null;
  aborted: boolean;
  stderrTail: string;
  /** The program does not exist (ENOENT). */
  notFound: boolean;
  /** Why the program could not be started at all (not found, not executable…), else null. */
  spawnError: string | null;
  /** What the program left running outside its process group, killed once it ended. */
  strays: StrayProcess[];
}

export const DEFAULT_MAX_LINE_BYTES = 1024 * 1024;
const DEFAULT_STDERR_TAIL_BYTES = 64 * 1024;

/**
 * Runs a long-lived program (an agent) on the child lifecycle (lifecycle.ts) and hands its
 * stdout over line by line, in bounded memory whatever it prints. Like execProgram: an
 * argument array (never a shell), its own process group, and a timeout, an idle limit or an
 * abort stop the whole group; what the program left running in its group when it exits is
 * stopped too, so nothing an attempt started outlives it. With watchDescendants, so is what it
 * started outside its group (a `setsid` daemon, a double fork), and the attempt ends when the
 * program does even while such a process holds its output pipes.
 */
export async function streamProcess(
  command: string,
  args: readonly string[],
  options: StreamOptions,
): Promise<StreamResult> {
  if (options.signal?.aborted) return streamResult(ABORTED_BEFORE_START, '');
  const stderrTail = new ByteTail(options.stderrTailBytes ?? DEFAULT_STDERR_TAIL_BYTES);
  const transcript = options.transcriptPath ? openTranscript(options.transcriptPath) : null;
  const child = startChild(command, args, {
    cwd: options.cwd,
    env: options.env,
    input: options.input,
    wallTimeoutMs: options.wallTimeoutMs,
    idleTimeoutMs: options.idleTimeoutMs,
    signal: options.signal,
    graceMs: options.graceMs,
    watchDescendants: options.watchDescendants,
    stdoutIsActivity: options.isProgress === undefined,
  });
  if (child.pgid !== undefined) options.onSpawn?.(child.pgid);

  // A listener that throws stops the program; the error is raised once it is gone.
  const listener: { error: Error | null } = { error: null };
  const deliver = (line: string, truncated: boolean): void => {
    if (listener.error) return;
    try {
      if (options.isProgress && (truncated || options.isProgress(line))) child.active();
      options.onLine(line, truncated);
    } catch (error) {
      listener.error = error instanceof Error ? error : new Error(String(error));
      child.stop();
    }
  };
  const splitter = new LineSplitter(options.maxLineBytes ?? DEFAULT_MAX_LINE_BYTES, deliver);

  // A slow transcript disk must not make the pending output pile up in memory.
  let paused = false;
  const tee = (chunk: Buffer): void => {
    if (transcript?.stream.writable && !transcript.stream.write(chunk) && !paused) {
      paused = true;
      child.stdout.pause();
      child.stderr.pause();
      transcript.stream.once('drain', resume);
    }
  };
  const resume = (): void => {
    paused = false;
    child.stdout.resume();
    child.stderr.resume();
  };
  transcript?.stream.on('error', resume);

  child.stdout.on('data', (chunk: Buffer) => {
    tee(chunk);
    splitter.push(chunk);
  });
  child.stderr.on('data', (chunk: Buffer) => {
    tee(chunk);
    stderrTail.push(chunk);
  });

  const end = await child.ended;
  splitter.end();
  await transcript?.close();
  if (listener.error) throw listener.error;
  return streamResult(end, stderrTail.text());
}

function streamResult(end: ChildEnd, stderrTail: string): StreamResult {
  return {
    exitCode: end.exitCode,
    signal: end.signal,
    timedOut: end.timedOut,
    aborted: end.aborted,
    stderrTail,
    notFound: end.spawnError?.code === 'ENOENT',
    spawnError: end.spawnError?.message ?? null,
    strays: end.strays ?? [],
  };
}

interface Transcript {
  stream: WriteStream;
  close: () => Promise<void>;
}

/** A transcript that cannot be written is given up on: losing it must not fail the attempt. */
function openTranscript(path: string): Transcript {
  const stream = createWriteStream(path, { flags: 'a' });
  let failed = false;
  stream.on('error', () => {
    failed = true;
  });
  const close = (): Promise<void> =>
    new Promise((done) => {
      if (failed || stream.destroyed) return done();
      stream.once('error', () => done());
      stream.end(() => done());
    });
  return { stream, close };
}

/**
 * Cuts a byte stream into lines without ever holding more than `maxLineBytes` of one
 * line: the start of a longer line is delivered (marked truncated) and the rest is
 * skipped up to its newline. Bytes are decoded as UTF-8, invalid sequences become U+FFFD.
 */
export class LineSplitter {
  private parts: Buffer[] = [];
  private size = 0;
  private skipping = false;
  private readonly decoder = new TextDecoder('utf-8', { fatal: false });

  constructor(
    private readonly maxLineBytes: number,
    private readonly emit: (line: string, truncated: boolean) => void,
  ) {}

  push(chunk: Buffer): void {
    let start = 0;
    while (start < chunk.length) {
      const newline = chunk.indexOf(0x0a, start);
      this.take(chunk.subarray(start, newline === -1 ? chunk.length : newline));
      if (newline === -1) return;
      this.endLine();
      start = newline + 1;
    }
  }

  /** The stream ended: a last line without a newline still counts. */
  end(): void {
    if (this.size > 0) this.endLine();
    this.skipping = false;
  }

  private take(piece: Buffer): void {
    if (this.skipping || piece.length === 0) return;
    const room = this.maxLineBytes - this.size;
    if (piece.length <= room) {
      this.parts.push(piece);
      this.size += piece.length;
      return;
    }
    this.parts.push(piece.subarray(0, room));
    this.size += room;
    this.flush(true);
    this.skipping = true;
  }

  private endLine(): void {
    if (this.skipping) this.skipping = false;
    else this.flush(false);
  }

  private flush(truncated: boolean): void {
    // A line inside one chunk (most of them) is decoded where it is, without a copy.
    const [only] = this.parts;
    const bytes = this.parts.length === 1 && only ? only : Buffer.concat(this.parts, this.size);
    this.parts = [];
    this.size = 0;
    const line = this.decoder.decode(bytes);
    this.emit(!truncated && line.endsWith('\r') ? line.slice(0, -1) : line, truncated);
  }
}

/** The last `maxBytes` bytes of a stream, decoded on demand. */
export class ByteTail {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(private readonly maxBytes: number) {}

  push(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.chunks.length > 1 && this.size - (this.chunks[0]?.length ?? 0) >= this.maxBytes) {
      this.size -= this.chunks.shift()?.length ?? 0;
    }
  }

  text(): string {
    const all = Buffer.concat(this.chunks, this.size);
    return new TextDecoder('utf-8', { fatal: false }).decode(
      all.subarray(Math.max(0, all.length - this.maxBytes)),
    );
  }
}
