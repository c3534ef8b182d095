import type { RunEvent } from '../../core/events.js';
import { messageOf } from '../../core/error-details.js';
import {
  accountText,
  engineContext,
  notInRepo,
  parseAccountEntry,
  type CheckpointRun,
  type RunPaths,
  type RunState,
} from '../../checkpoint/index.js';
import { remoteContext } from '../../git/remote.js';
import { locateRepo } from '../../git/repo.js';
import type { GitContext } from '../../git/git.js';
import { fetchAccountText, pushAccountText } from '../../remote/account-ref.js';
import type { AccountShare } from '../account-governor.js';
import { deleteClaim, pushClaim, readRemoteClaim, type HeldClaim } from '../../remote/claim.js';
import { readPushedTip, readRemoteRunView } from '../../remote/remote-view.js';
import { secretRootsOf, secretsHere } from '../secrets.js';
import { agreeWithRemote, branchMovedError } from './remote-truth.js';
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
  /** How the machine that took the claim over ended the run, when it did (lastWriter). */
  private lostToFinished: 'keep' | 'cleanup' | null = null;
  /** Why this machine stopped pushing without losing the claim (the remote's branch moved). */
  private refusedBecause: string | null = null;
  private emit: ((event: RunEvent) => void) | null = null;
  private run: CheckpointRun | null = null;
  /** Set by `resume --from` when the remote holds another machine's progress save. */
  remoteProgress = false;
  /** Set by `finish --from` when the run had ended on the remote and this repository followed. */
  endedOnRemote = false;

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
    // One identity lookup for the session's commits (each record is one), not one per commit.
    const ctx: GitContext = {
      ...remoteContext(engineContext(repo, engine), remoteTimeoutMs(req.commandTimeoutMs)),
      identity: { settings: null },
    };
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

  /**
   * The usage governor's account entry shared through this remote (`refs/ralphtool/accounts/
   * <key>`, remote/account-ref.ts); a remote that cannot be reached shares nothing.
   */
  accountShare(): AccountShare {
    const { ctx } = this;
    const { remote } = this.req;
    return {
      fetch: async (key) => {
        const text = await fetchAccountText(ctx, remote, key).catch(() => null);
        return text === null ? null : parseAccountEntry(text);
      },
      push: async (key, entry) => {
        const pushed = await pushAccountText(ctx, remote, key, accountText(entry));
        if (!pushed) throw new Error(`the push of the account entry to ${remote} failed`);
      },
    };
  }

  /** Aborted when another machine took the claim over: the run must stop. */
  get lost(): AbortSignal {
    return this.lostController.signal;
  }

  /**
   * Before a run that pushes acts: the remote must agree with this machine's copy of the run
   * (remote-truth.ts); sets the tip its pushes move the remote branch from.
   */
  async agree(mode: 'start' | 'continue', force: boolean): Promise<void> {
    await agreeWithRemote({
      ctx: this.ctx,
      remote: this.req.remote,
      change: this.req.change,
      mode,
      force,
      notice: this.req.notice,
    });
  }

  /** The one line that says why the run stopped pushing (the claim lost, the branch moved), or null. */
  get lostMessage(): string | null {
    if (this.refusedBecause !== null) return this.refusedBecause;
    if (this.lostTo === null) return null;
    const { change, remote } = this.req;
    const way =
      this.lostToFinished === null
        ? `once that machine is done, \`ralphtool resume ${change} --from ${remote}\` continues here from the remote's record`
        : `\`ralphtool finish ${change} --from ${remote} --${this.lostToFinished}\` ends this machine's copy the same way`;
    return `the claim of ${change} on ${remote} was taken over by ${this.lostTo}: this machine stopped the run and pushes nothing more; ${way} (this machine's copy set aside, nothing lost)`;
  }

  /** The run's event stream with a push after every step (once the run exists). */
  attach(run: CheckpointRun, next: (event: RunEvent) => void): (event: RunEvent) => void {
    const roots = secretRootsOf(run);
    this.run = run;
    this.sync = createRemoteSync({
      remote: this.req.remote,
      change: this.req.change,
      ctx: this.ctx,
      paths: run.paths,
      gitCommonDir: run.repo.gitCommonDir,
      next,
      claimSha: () => this.held.sha,
      releaseClaim: true,
      exclusive: this.exclusive,
      progressOnRemote: this.remoteProgress,
      secrets: () => secretsHere(this.req.env, roots),
      onClaimRefused: () => {
        this.beating = this.beating.then(() => this.checkClaim());
      },
      onBranchMoved: () => {
        this.beating = this.beating.then(() => this.branchMoved());
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
      releaseClaim: true,
      exclusive: this.exclusive,
      progressOnRemote: this.remoteProgress,
      secrets: () => secretsHere(this.req.env, roots),
    });
  }

  /**
   * The last push tried (a held `run.finished` passed on), the claim released with it; when
   * that push did not go through (or there was none), the claim released alone.
   */
  async end(): Promise<void> {
    this.stopHeartbeat();
    await this.beating;
    if (this.sync !== null) {
      await this.sync.settled();
      this.sync.close();
      // What the last push found out (a claim lost, the remote's branch moved) is known first.
      await this.beating;
      if (this.sync.claimReleased) return;
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
      this.loseTo(now?.info ? `${now.info.host} (pid ${now.info.pid})` : await this.lastWriter());
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
    this.loseTo(now?.info ? `${now.info.host} (pid ${now.info.pid})` : await this.lastWriter());
  }

  /**
   * A push refused because the remote's branch is not where this run last pushed it: someone
   * else pushed there. The run stops as when the claim is lost and pushes nothing more; their
   * commit is saved here and named.
   */
  private async branchMoved(): Promise<void> {
    if (this.lostTo !== null || this.refusedBecause !== null) return;
    const { remote, change } = this.req;
    const [pushed, theirs] = await Promise.all([
      readPushedTip(this.ctx, remote, change).catch(() => null),
      readRemoteRunView(this.ctx, remote, change).catch(() => null),
    ]);
    if (pushed === null || theirs?.branch == null || theirs.branch === pushed) return;
    const finished = this.run?.state.status === 'finished';
    const error = await branchMovedError(this.ctx, remote, change, pushed, theirs.branch, {
      stopped: !finished,
      finished,
    });
    this.refusedBecause = error.message;
    this.stopHeartbeat();
    this.sync?.disable();
    this.lostController.abort();
  }

  /**
   * Who took a claim that is gone now: the machine that last wrote the run's record there (it
   * took the claim over, went on, and released it at its end), as far as the remote tells.
   */
  private async lastWriter(): Promise<string> {
    const view = await readRemoteRunView(this.ctx, this.req.remote, this.req.change).catch(
      () => null,
    );
    const about = view?.record?.about ?? null;
    if (about === null || about.host === undefined) return 'a machine that has since released it';
    const state = view?.record?.state ?? null;
    if (state?.status === 'finished') this.lostToFinished = state.choice ?? 'keep';
    const ended =
      state?.status === 'finished' ? `, which finished the run (${state.choice ?? 'ended'})` : '';
    return `${about.host}${ended} and has since released it (the record there was last written at ${about.writtenAt})`;
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
