import type { RunEvent } from '../../core/events.js';
import { messageOf } from '../../core/error-details.js';
import {
  engineContext,
  notInRepo,
  type CheckpointRun,
  type RunPaths,
  type RunState,
} from '../../checkpoint/index.js';
import { remoteContext } from '../../git/remote.js';
import { locateRepo } from '../../git/repo.js';
import type { GitContext } from '../../git/git.js';
import { deleteClaim, pushClaim, readRemoteClaim, type HeldClaim } from '../../remote/claim.js';
import { secretsHere } from '../secrets.js';
import { acquireClaim, assertRemoteKnown, type TakenClaim } from './remote-claim.js';
import { createRemoteSync, type RemoteSync } from './remote-sync.js';

/** How long one push, fetch or claim may take: the command timeout, but never under 2 minutes. */
export function remoteTimeoutMs(commandTimeoutMs: number): number {
  return Math.max(commandTimeoutMs, 120_000);
}

/** How often a held claim's heartbeat is refreshed: a third of the TTL, at most 5 minutes. */
export function heartbeatEveryMs(claimTtlMs: number): number {
  return Math.max(250, Math.min(Math.floor(claimTtlMs / 3), 5 * 60_000));
}

export interface RemoteSessionRequest {
  remote: string;
  change: string;
  /** A directory of the repository. */
  cwd: string;
  commandTimeoutMs: number;
  claimTtlMs: number;
  env: NodeJS.ProcessEnv;
  notice: (message: string) => void;
}

/**
 * `--push <remote>` around one run (docs/contract.md, "Claims"): the claim taken before
 * anything changes and its heartbeat refreshed while the run goes, the pushes after every step,
 * the last push and the claim's release at its end. A claim another machine took over is lost:
 * `lost` is aborted, the run stops at once, and this process pushes nothing more.
 */
export class RemoteSession {
  private sync: RemoteSync | null = null;
  private heartbeat: NodeJS.Timeout | null = null;
  private beating: Promise<void> = Promise.resolve();
  /**
   * One push to the remote at a time, heartbeats and the run's pushes alike: a run's push leases
   * the claim, and a heartbeat moving the claim under it would get it refused (under load, every
   * time: the branch was never pushed before the claim was lost in a test with 1 s heartbeats).
   */
  private pushing: Promise<unknown> = Promise.resolve();
  private readonly exclusive = <T>(push: () => Promise<T>): Promise<T> => {
    const done = this.pushing.then(push);
    this.pushing = done.catch(() => undefined);
    return done;
  };
  private held: HeldClaim;
  private readonly lostController = new AbortController();
  private lostTo: string | null = null;
  private emit: ((event: RunEvent) => void) | null = null;
  private run: CheckpointRun | null = null;
  /** Set by `resume --from` when the remote holds another machine's progress save. */
  remoteProgress = false;

  private constructor(
    private readonly req: RemoteSessionRequest,
    private readonly ctx: GitContext,
    readonly claim: TakenClaim,
  ) {
    this.held = claim.held;
  }

  /** Claims the change on the remote; refuses (exit 1) when another machine holds it. */
  static async open(req: RemoteSessionRequest): Promise<RemoteSession> {
    const engine = { timeoutMs: req.commandTimeoutMs, baseEnv: req.env };
    const repo = await locateRepo({ cwd: req.cwd, ...engine });
    if (repo === null) throw notInRepo(req.cwd);
    // Claims, records and pushes touch no work tree: one context of the repository serves all.
    const ctx = remoteContext(engineContext(repo, engine), remoteTimeoutMs(req.commandTimeoutMs));
    await assertRemoteKnown(ctx, req.remote);
    const claim = await acquireClaim(ctx, req.remote, req.change, req.claimTtlMs);
    if (claim.tookOver !== null) {
      const from = claim.tookOver.info;
      req.notice(
        `warning: took over the claim of ${req.change} on ${req.remote} from ${from === null ? 'an unreadable claim' : `${from.host} (pid ${from.pid}), whose heartbeat was ${from.heartbeatAt}`}: ${claim.reason}`,
      );
    }
    const session = new RemoteSession(req, ctx, claim);
    session.startHeartbeat();
    return session;
  }

  /** Aborted when another machine took the claim over: the run must stop. */
  get lost(): AbortSignal {
    return this.lostController.signal;
  }

  /** The one line that says the claim was lost, or null while it is held. */
  get lostMessage(): string | null {
    if (this.lostTo === null) return null;
    return `the claim of ${this.req.change} on ${this.req.remote} was taken over by ${this.lostTo}: this machine stopped the run and pushes nothing more (\`ralphtool resume ${this.req.change} --from ${this.req.remote}\` on that machine's side continues it)`;
  }

  /** The run's event stream with a push after every step (once the run exists). */
  attach(run: CheckpointRun, next: (event: RunEvent) => void): (event: RunEvent) => void {
    // A run in a worktree of its own: the dotenv files are in the user's work tree.
    const roots = [run.repo.root, ...(run.state.home ? [run.state.home.root] : [])];
    this.run = run;
    this.sync = createRemoteSync({
      remote: this.req.remote,
      change: this.req.change,
      ctx: this.ctx,
      paths: run.paths,
      next,
      claimSha: () => this.held.sha,
      exclusive: this.exclusive,
      progressOnRemote: this.remoteProgress,
      secrets: () => secretsHere(this.req.env, roots),
      onClaimRefused: () => {
        this.beating = this.beating.then(() => this.checkClaim());
      },
    });
    this.emit = this.sync.emit;
    const from = this.claim.tookOver?.info ?? null;
    next({
      type: 'claim.taken',
      remote: this.req.remote,
      ...(this.claim.tookOver === null
        ? {}
        : {
            tookOverFrom:
              from === null
                ? null
                : { host: from.host, pid: from.pid, heartbeatAt: from.heartbeatAt },
          }),
    });
    return this.sync.emit;
  }

  /**
   * For a command that ends a run without a loop (`finish --from`): one push of the run's refs
   * and record as they are now, its failure said as a warning.
   */
  attachQuiet(paths: RunPaths, root: string): void {
    const roots = [root];
    this.sync = createRemoteSync({
      remote: this.req.remote,
      change: this.req.change,
      ctx: this.ctx,
      paths,
      next: (event) => {
        if (event.type === 'remote.push-failed') {
          this.req.notice(
            `warning: could not push the run's end to ${this.req.remote}: ${event.message}`,
          );
        }
      },
      claimSha: () => this.held.sha,
      exclusive: this.exclusive,
      progressOnRemote: this.remoteProgress,
      secrets: () => secretsHere(this.req.env, roots),
    });
  }

  /** The last push tried (a held `run.finished` passed on), then the claim released. */
  async end(): Promise<void> {
    this.stopHeartbeat();
    await this.beating;
    if (this.sync !== null) {
      await this.sync.settled();
      this.sync.close();
    }
    if (this.lostTo !== null) return;
    try {
      const released = await deleteClaim(this.ctx, this.held);
      if (!released) {
        this.req.notice(
          `warning: the claim of ${this.req.change} on ${this.req.remote} was no longer this machine's when the run ended (another machine took it over)`,
        );
      }
    } catch (error) {
      this.req.notice(
        `warning: could not release the claim of ${this.req.change} on ${this.req.remote}: ${messageOf(error)}; another machine may take it over after --claim-ttl`,
      );
    }
  }

  private startHeartbeat(): void {
    this.heartbeat = setInterval(() => {
      this.beating = this.beating.then(() => this.beat());
    }, heartbeatEveryMs(this.req.claimTtlMs));
    this.heartbeat.unref();
  }

  private stopHeartbeat(): void {
    if (this.heartbeat !== null) clearInterval(this.heartbeat);
    this.heartbeat = null;
  }

  /** One heartbeat: the claim pushed again with a fresh time, only if it is still ours. */
  private async beat(): Promise<void> {
    if (this.heartbeat === null || this.lostTo !== null) return;
    const info = { ...this.held.info, heartbeatAt: new Date().toISOString() };
    try {
      const held = await this.exclusive(() =>
        pushClaim(this.ctx, this.req.remote, info, this.held.sha),
      );
      if (held !== null) {
        this.held = held;
        // The attempt going on is saved and pushed too: a machine that dies now leaves it.
        if ((await this.run?.saveProgress().catch(() => null)) != null) this.sync?.request();
        return;
      }
      const now = await readRemoteClaim(this.ctx, this.req.remote, this.req.change).catch(
        () => null,
      );
      this.loseTo(
        now?.info
          ? `${now.info.host} (pid ${now.info.pid})`
          : 'another machine (or it was deleted)',
      );
    } catch (error) {
      // Unreachable for a moment: the next heartbeat tries again; the TTL is three of them.
      this.req.notice(
        `warning: could not refresh the claim of ${this.req.change} on ${this.req.remote}: ${messageOf(error)}`,
      );
    }
  }

  /** After a push refused on the claim: lost unless the remote's claim is still ours. */
  private async checkClaim(): Promise<void> {
    if (this.lostTo !== null) return;
    const now = await readRemoteClaim(this.ctx, this.req.remote, this.req.change).catch(
      () => undefined,
    );
    if (now === undefined || now?.sha === this.held.sha) return;
    this.loseTo(
      now?.info ? `${now.info.host} (pid ${now.info.pid})` : 'nobody (the claim was deleted)',
    );
  }

  private loseTo(holder: string): void {
    this.lostTo = holder;
    this.stopHeartbeat();
    this.sync?.disable();
    this.emit?.({ type: 'claim.lost', remote: this.req.remote, holder });
    this.lostController.abort();
  }
}

/**
 * Where a run pushes: `--push` when given, else the remote the run recorded (a run started with
 * `--push` keeps pushing there, as it keeps its budget); null: nowhere. `recorded` is the run's
 * record read before it is opened (null for a start, or when there is none).
 */
export function pushTarget(given: string | null, recorded: RunState | null): string | null {
  return given ?? recorded?.remote?.push ?? null;
}
