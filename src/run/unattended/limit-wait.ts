import type { AgentLimit } from '../../agents/types.js';
import { decideLimitWait, remainingWaitMs } from '../../core/limit-wait.js';
import type { ParkedOutcome } from '../../core/loop.js';
import { formatDuration } from '../../format/units.js';
import type { LoopContext, LoopSetup } from '../loop-types.js';

/**
 * Waits out usage/rate limits and transient API errors for the loop (docs/contract.md, "Usage
 * limits"): how long comes from core/limit-wait.ts; this does the waiting, records it in the run
 * state (so that `status` shows it and a `resume` after a crash waits out the rest), and stops
 * at once when the user asks to stop.
 */
export class LimitWaiter {
  /** Limited attempts in a row; an attempt that was not limited starts the count again. */
  private consecutive = 0;
  /** Time waited for limits in this invocation, for `--max-wait`. */
  private waitedMs = 0;

  constructor(
    private readonly setup: LoopSetup,
    private readonly deps: LoopContext,
    /** When this invocation's loop started: `--max-duration` counts from it. */
    private readonly started: number,
  ) {}

  /**
   * Whether the limit the attempt just met is one transient error too many: then it counts as
   * an ordinary failure (kind `agent-error`) instead of being waited out.
   */
  counts(limit: AgentLimit): boolean {
    return this.decide(limit.kind, limit.resetsAt, this.consecutive + 1).action === 'count';
  }

  /** The attempt was settled without a limit. */
  settled(): void {
    this.consecutive = 0;
  }

  /**
   * The attempt met `limit` (reverted, not counted): waits it out and returns null (the loop
   * tries the same story again, or finds the stop the user asked for), or returns the outcome
   * that ends the run instead.
   */
  async handle(storyId: string, attempt: number, limit: AgentLimit): Promise<ParkedOutcome | null> {
    this.consecutive += 1;
    const decision = this.decide(limit.kind, limit.resetsAt, this.consecutive);
    // The account's limit, told to every run on it (a transient API error is not the account's).
    if ((limit.kind === 'usage' || limit.kind === 'rate') && decision.action !== 'count') {
      await this.deps.account?.hitLimit(limit, decision.until);
    }
    if (this.setup.options.onLimit === 'stop') {
      this.deps.emit({
        type: 'error',
        message: `${describe(limit)}; --on-limit stop ends the run here${limit.resetsAt ? ` (it resets at ${limit.resetsAt})` : ''}: \`ralphtool resume ${this.setup.change.name}\` carries on`,
        fatal: false,
      });
      return 'limited';
    }
    if (decision.action === 'count') return null; // counts() already made it a failure
    if (decision.action === 'stop') {
      this.reportStop(decision.outcome, decision.waitMs, limit);
      return decision.outcome;
    }
    await this.wait(storyId, attempt, limit, decision.waitMs, decision.until);
    return null;
  }

  /**
   * Every agent of the run is limited (fallback agents, docs/contract.md "Fallback agents"): waits
   * until the first of them resets, as a limit is waited out (`--on-limit stop`, `--max-wait` and
   * `--max-duration` as for any wait); null when the loop goes on.
   */
  async waitForAgents(
    storyId: string,
    attempt: number,
    all: { agent: string; until: number; limit: AgentLimit },
  ): Promise<ParkedOutcome | null> {
    const limit: AgentLimit = {
      ...all.limit,
      message: `every agent is limited, ${all.agent} resets first: ${all.limit.message}`,
    };
    if (this.setup.options.onLimit === 'stop') {
      this.deps.emit({
        type: 'error',
        message: `${describe(limit)}; --on-limit stop ends the run here: \`ralphtool resume ${this.setup.change.name}\` carries on`,
        fatal: false,
      });
      return 'limited';
    }
    // A millisecond past the end: the agent is free again when the loop next chooses one.
    const waitMs = Math.max(0, all.until - this.deps.clock.now()) + 1;
    const stop = this.stopBefore(all.until);
    if (stop !== null) {
      this.reportStop(stop, waitMs, limit);
      return stop;
    }
    await this.wait(storyId, attempt, limit, waitMs, all.until);
    return null;
  }

  /**
   * Before an attempt: the pause of the runs in this process (processPause), then the account's file
   * (run/account-governor.ts): another run's limit still in force, or the window at or above
   * `--pause-at`, is waited out like a limit of this run's own (`--on-limit stop`, `--max-wait`
   * and `--max-duration` as for any wait), no attempt charged. `waited`: the loop decides again;
   * an outcome ends the run; null: the attempt may start.
   */
  async beforeAttempt(
    storyId: string,
    attempt: number,
    /** False in a run with fallback agents: the roster asks the governor of each agent. */
    accountGate = true,
  ): Promise<ParkedOutcome | 'waited' | null> {
    if (await this.processPause(storyId, attempt)) return 'waited';
    const account = this.deps.account;
    if (account === undefined || !accountGate || this.deps.stop.aborted) return null;
    const gate = await account.gate(this.deps.clock.now());
    if (gate.action === 'go') return null;
    const limit: AgentLimit = {
      kind: gate.kind,
      resetsAt: gate.resetsAt,
      source: gate.source,
      message: gate.message,
    };
    if (this.setup.options.onLimit === 'stop') {
      this.deps.emit({
        type: 'error',
        message: `${describe(limit)}; --on-limit stop ends the run here: \`ralphtool resume ${this.setup.change.name}\` carries on`,
        fatal: false,
      });
      return 'limited';
    }
    const stop = this.stopBefore(gate.until);
    const waitMs = Math.max(0, gate.until - this.deps.clock.now());
    if (stop !== null) {
      this.reportStop(stop, waitMs, limit);
      return stop;
    }
    await this.wait(storyId, attempt, limit, waitMs, gate.until, { holds: false });
    return 'waited';
  }

  /**
   * Before an attempt, with several runs in one process: while another run on the same account
   * (agent kind) waits out a limit, this one waits with it, shown and recorded as a limit wait
   * of its own (the attempt is not begun, nothing counts). True when it waited: the loop decides
   * again (a stop asked meanwhile ends it).
   */
  private async processPause(storyId: string, attempt: number): Promise<boolean> {
    const pause = this.deps.accountPause;
    const kind = this.setup.options.agent;
    const change = this.setup.change.name;
    const hold = pause?.heldFor(kind, change) ?? null;
    if (pause === undefined || hold === null || this.deps.stop.aborted) return false;
    const limit: AgentLimit = {
      ...hold.limit,
      message: `the run of ${hold.change} on the same account waits for this limit: ${hold.limit.message}`,
    };
    const until = Math.max(hold.until, this.deps.clock.now());
    await this.wait(storyId, attempt, limit, until - this.deps.clock.now(), until, {
      over: pause.cleared(kind, change),
      holds: false,
    });
    return true;
  }

  /**
   * Before the first attempt of a `resume`: a wait the run state still records (ralphtool was
   * killed during it) is waited out for what is left of it; one already over is forgotten.
   */
  async resumeRecorded(): Promise<ParkedOutcome | null> {
    const record = this.deps.run.state.wait;
    if (record === undefined || record === null) return null;
    const until = Date.parse(record.until);
    const left = remainingWaitMs(until, this.deps.clock.now());
    const limit: AgentLimit = {
      kind: record.kind,
      resetsAt: record.resetsAt,
      source: record.source,
      message: record.message,
    };
    if (left === 0 || this.deps.stop.aborted || this.setup.options.onLimit === 'stop') {
      await this.deps.run.recordWait(null);
      if (left > 0 && !this.deps.stop.aborted) return this.handle(record.storyId, 0, limit);
      return null;
    }
    const attempt = this.deps.run.progressOf(record.storyId).attempts + 1;
    // What is left is the wait now: past --max-wait or the deadline it ends the run as any would.
    const stop = this.stopBefore(until);
    if (stop !== null) {
      await this.deps.run.recordWait(null);
      this.reportStop(stop, left, limit);
      return stop;
    }
    await this.wait(record.storyId, attempt, limit, left, until);
    return null;
  }

  private decide(kind: AgentLimit['kind'], resetsAt: string | null, consecutive: number) {
    return decideLimitWait({
      kind,
      resetsAt,
      consecutive,
      waitedMs: this.waitedMs,
      maxWaitMs: this.setup.options.maxWaitMs,
      notAfter: this.notAfter(),
      now: this.deps.clock.now(),
    });
  }

  private notAfter(): number | null {
    const max = this.setup.options.maxDurationMs;
    return max === null ? null : this.started + max;
  }

  /** The outcome a wait until `until` would run into, or null when it may be waited. */
  private stopBefore(until: number): ParkedOutcome | null {
    const maxWaitEnd =
      this.deps.clock.now() + Math.max(0, this.setup.options.maxWaitMs - this.waitedMs);
    const deadline = this.notAfter() ?? Number.POSITIVE_INFINITY;
    if (until <= maxWaitEnd && until <= deadline) return null;
    return deadline < maxWaitEnd ? 'time-limit' : 'limited';
  }

  private reportStop(outcome: ParkedOutcome, waitMs: number, limit: AgentLimit): void {
    const byDeadline = outcome === 'time-limit';
    const allowed = byDeadline
      ? '--max-duration ends the run first'
      : `more than --max-wait ${formatDuration(this.setup.options.maxWaitMs)} allows (${formatDuration(this.waitedMs)} waited already)`;
    this.deps.emit({
      type: 'limit.reached',
      limit: byDeadline ? 'max-duration' : 'max-wait',
      message: `${describe(limit)}: waiting ${formatDuration(waitMs)} is ${allowed}; the run stops here, resumable: \`ralphtool resume ${this.setup.change.name}\``,
    });
  }

  /** Waits (recorded in the run state), then reports that the loop goes on; a stop ends it at once. */
  private async wait(
    storyId: string,
    attempt: number,
    limit: AgentLimit,
    waitMs: number,
    until: number,
    shared: {
      /** Ends the wait early: another run's wait this one shares is over (processPause). */
      over?: Promise<void>;
      /** Whether the wait holds the other runs of this process (a shared one does not: no cycle). */
      holds: boolean;
    } = { holds: true },
  ): Promise<void> {
    const { over, holds } = shared;
    const { run, emit, stop } = this.deps;
    // Recorded first: once the event is out, `status` and a resume after a crash know of it.
    await run.recordWait({ until: new Date(until).toISOString(), storyId, ...limit });
    emit({ type: 'agent.limited', storyId, attempt, ...limit, waitMs });
    // This run's own wait holds the other runs on the account (a shared one does not: no cycle).
    const endHold = holds
      ? this.deps.accountPause?.begin(this.setup.options.agent, {
          change: this.setup.change.name,
          until,
          limit,
        })
      : undefined;
    const began = this.deps.clock.now();
    const cut = new AbortController();
    const onStop = (): void => cut.abort();
    stop.addEventListener('abort', onStop, { once: true });
    if (stop.aborted) cut.abort();
    over?.then(onStop, onStop);
    try {
      await this.deps.clock.sleep(waitMs, cut.signal);
    } finally {
      stop.removeEventListener('abort', onStop);
      endHold?.();
    }
    this.waitedMs += this.deps.clock.now() - began;
    // Stopped or over, the wait is no longer going on; only a crash leaves it recorded.
    await run.recordWait(null);
    if (!stop.aborted)
      emit({ type: 'limit.resumed', storyId, waitedMs: this.deps.clock.now() - began });
  }
}

/** `usage limit (exit 75): <message>` */
function describe(limit: AgentLimit): string {
  return `${limit.kind} limit (${limit.source}): ${limit.message}`;
}
