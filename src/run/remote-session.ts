import type { RunEvent } from '../core/events.js';
import type { CheckpointRun } from '../checkpoint/index.js';
import { engineContext, notInRepo } from '../checkpoint/run-git.js';
import { remoteContext } from '../git/remote.js';
import { locateRepo } from '../git/repo.js';
import type { GitContext } from '../git/git.js';
import { deleteClaim } from '../remote/claim.js';
import { acquireClaim, type TakenClaim } from './remote-claim.js';
import { createRemoteSync, type RemoteSync } from './remote-sync.js';

/** How long one push, fetch or claim may take: the command timeout, but never under 2 minutes. */
export function remoteTimeoutMs(commandTimeoutMs: number): number {
  return Math.max(commandTimeoutMs, 120_000);
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
 * `--push <remote>` around one run: the claim taken before anything changes, the pushes after
 * every step while the run goes, the last push and the claim's release at its end.
 */
export class RemoteSession {
  private sync: RemoteSync | null = null;

  private constructor(
    private readonly req: RemoteSessionRequest,
    private readonly ctx: GitContext,
    readonly claim: TakenClaim,
  ) {}

  /** Claims the change on the remote; refuses (exit 1) when another machine holds it. */
  static async open(req: RemoteSessionRequest): Promise<RemoteSession> {
    const engine = { timeoutMs: req.commandTimeoutMs, baseEnv: req.env };
    const repo = await locateRepo({ cwd: req.cwd, ...engine });
    if (repo === null) throw notInRepo(req.cwd);
    // Claims, records and pushes touch no work tree: one context of the repository serves all.
    const ctx = remoteContext(engineContext(repo, engine), remoteTimeoutMs(req.commandTimeoutMs));
    const claim = await acquireClaim(ctx, req.remote, req.change, req.claimTtlMs);
    if (claim.tookOver !== null) {
      req.notice(
        `warning: took over the claim on ${req.remote} of ${claim.tookOver.info?.host ?? 'an unknown machine'}, whose heartbeat was older than --claim-ttl`,
      );
    }
    return new RemoteSession(req, ctx, claim);
  }

  /** The run's event stream with a push after every step (once the run exists). */
  attach(run: CheckpointRun, next: (event: RunEvent) => void): (event: RunEvent) => void {
    this.sync = createRemoteSync({
      remote: this.req.remote,
      change: this.req.change,
      ctx: this.ctx,
      paths: run.paths,
      next,
    });
    return this.sync.emit;
  }

  /** The last push tried (a held `run.finished` passed on), then the claim released. */
  async end(): Promise<void> {
    if (this.sync !== null) {
      await this.sync.settled();
      this.sync.close();
    }
    try {
      const released = await deleteClaim(this.ctx, this.claim.held);
      if (!released) {
        this.req.notice(
          `warning: the claim on ${this.req.remote} was no longer this machine's when the run ended (another machine took it over)`,
        );
      }
    } catch (error) {
      this.req.notice(
        `warning: could not release the claim on ${this.req.remote}: ${error instanceof Error ? error.message : String(error)}; it expires after --claim-ttl`,
      );
    }
  }
}
