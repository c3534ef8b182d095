import { buildEnv } from '../process/exec.js';
import { startChild, type GroupChild } from '../process/lifecycle.js';
import { git, gitCommandLine, type GitContext } from './git.js';

/** The answer that ends one transaction of `git update-ref --stdin`. */
const COMMITTED = 'commit: ok';

/**
 * At most this many writers keep a process open at once (one per run of the process: `run
 * --parallel` runs several); a new one ends the process of the writer used longest ago, which
 * starts a new one when it is used again. So writers that are never closed (a run object
 * dropped after a failure) cannot pile up idle git processes.
 */
const MAX_OPEN = 8;

/** Writers with a process open, the one used longest ago first. */
const open = new Set<RefWriter>();

/**
 * The pids of the writers' git processes alive now. They wait in the repository between
 * transactions holding no lock: lock-holder.ts must not take one for the owner of a stale lock.
 */
export function refWriterPids(): Set<number> {
  const pids = new Set<number>();
  for (const writer of open) {
    const pid = writer.pid();
    if (pid !== undefined) pids.add(pid);
  }
  return pids;
}

/**
 * Points refs of ralphtool's own (`refs/ralphtool/…`: the checkpoint's pin, an attempt's save)
 * through one `git update-ref --stdin -z` kept open for a run, each update a transaction of its
 * own: a story then starts no git process for them (a process start costs milliseconds; a
 * transaction written to a running one, a fraction of one). git reads the refs afresh at each
 * transaction, so what others did to them meanwhile is seen as by a process of its own.
 *
 * Anything unexpected — git refusing (a held lock, a bad name), gone, or silent past the
 * command timeout — ends that process, and the update is made again by a `git update-ref` of its
 * own, which retries a held lock and says its failure as every git verb does; the next update
 * starts a new process. So a failure reads exactly as it did without this writer.
 */
export class RefWriter {
  private child: GroupChild | null = null;
  /** Answer lines not yet read, and the reader waiting for the next one. */
  private lines: string[] = [];
  private partial = '';
  private waiting: ((line: string | null) => void) | null = null;
  private ended = false;
  /** One update at a time: the transactions of one process are answered in order. */
  private queue: Promise<void> = Promise.resolve();

  constructor(private readonly ctx: GitContext) {}

  /** Points `ref` at `sha` (no check of its old value), or throws as `git update-ref` would. */
  update(ref: string, sha: string, context: string): Promise<void> {
    const next = this.queue.then(() => this.updateNow(ref, sha, context));
    this.queue = next.catch(() => undefined);
    return next;
  }

  /** The pid of its git process, while one is open. */
  pid(): number | undefined {
    return this.child?.pgid;
  }

  /** Ends the process (its stdin closed: git exits). Later updates start a new one. */
  close(): void {
    open.delete(this);
    const child = this.child;
    this.child = null;
    child?.stdin?.end();
  }

  private async updateNow(ref: string, sha: string, context: string): Promise<void> {
    if (!this.ctx.signal?.aborted && (await this.transaction(ref, sha))) return;
    this.stopChild();
    await git(this.ctx, ['update-ref', ref, sha], { context });
  }

  /** One transaction through the running process; false when it did not say it committed. */
  private async transaction(ref: string, sha: string): Promise<boolean> {
    const child = this.child ?? this.start();
    if (!child?.stdin) return false;
    open.delete(this);
    open.add(this);
    child.hold(true);
    const limit = this.ctx.timeoutMs;
    const timer = limit > 0 ? setTimeout(() => this.stopChild(), limit) : undefined;
    try {
      child.stdin.write(`start\0update ${ref}\0${sha}\0\0commit\0`);
      const started = await this.nextLine();
      const committed = started === 'start: ok' ? await this.nextLine() : null;
      return committed === COMMITTED;
    } finally {
      clearTimeout(timer);
      child.hold(false);
    }
  }

  private start(): GroupChild | null {
    // The queue lets one update run at a time per writer, so the one used longest ago is idle.
    if (open.size >= MAX_OPEN) [...open][0]?.close();
    const { command, args, env } = gitCommandLine(this.ctx, ['update-ref', '--stdin', '-z']);
    const child = startChild(command, args, {
      cwd: this.ctx.cwd,
      env: buildEnv(this.ctx.baseEnv, env),
      conversation: true,
    });
    if (child.pgid === undefined) return null;
    this.child = child;
    this.lines = [];
    this.partial = '';
    this.ended = false;
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      if (this.child === child) this.read(chunk);
    });
    // What git says when it refuses is said again by the one-off `update-ref` that follows.
    child.stderr.resume();
    const onEnd = (): void => {
      if (this.child !== child && this.child !== null) return; // a newer one answers now
      open.delete(this);
      this.child = null;
      this.ended = true;
      this.deliver(null);
    };
    // `ended` never rejects (lifecycle.ts); the handler is there for the rule's sake.
    child.ended.then(onEnd, onEnd);
    return child;
  }

  private read(chunk: string): void {
    const parts = (this.partial + chunk).split('\n');
    this.partial = parts.pop() ?? '';
    for (const line of parts) this.deliver(line);
  }

  private deliver(line: string | null): void {
    const waiting = this.waiting;
    if (waiting) {
      this.waiting = null;
      waiting(line);
    } else if (line !== null) this.lines.push(line);
  }

  private nextLine(): Promise<string | null> {
    const line = this.lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => (this.waiting = resolve));
  }

  private stopChild(): void {
    open.delete(this);
    const child = this.child;
    this.child = null;
    child?.stop();
    this.ended = true;
    this.deliver(null);
  }
}
