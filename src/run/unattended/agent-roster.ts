import type { AgentBackend, AgentLimit } from '../../agents/types.js';
import {
  activeLimits,
  chooseAgent,
  isLimited,
  firstToReset,
  SWITCHING_KINDS,
  type AgentLimitRecord,
  type AgentSlot,
} from '../../core/agent-choice.js';
import { limitWaitMs } from '../../core/limit-wait.js';
import type { FallbackRecord } from '../../checkpoint/index.js';
import type { LoopContext, LoopSetup } from '../loop-types.js';
import type { FallbackAgent } from '../options.js';

/** The agent of one attempt: its name, its model (null: the agent's own) and its backend. */
export interface AttemptAgent extends AgentSlot {
  backend: AgentBackend;
}

/** Every agent is limited: wait until the first of them resets (then it runs the story). */
export interface AllLimited {
  agent: string;
  until: number;
  limit: AgentLimit;
}

/**
 * The run's agents with `--fallback-agent` (docs/contract.md, "Fallback agents"): the primary,
 * then the fallbacks in order. Before each attempt the first one not limited runs it; an agent
 * that meets a usage or rate limit is remembered as limited until its reset (recorded in the
 * run state, so a resume after a crash knows), and the story goes on at once with the next.
 * Without fallbacks it is the primary alone and changes nothing.
 */
export class AgentRoster {
  /** Usage/rate limits in a row per agent, for the backoff of a limit without a reset time. */
  private readonly consecutive = new Map<string, number>();
  private readonly backends = new Map<string, AgentBackend>();
  /** The agent of the last attempt (this invocation's, or the one the record names). */
  private last: string | null;

  private constructor(
    private readonly deps: LoopContext,
    private readonly order: readonly AgentSlot[],
    private limited: Record<string, AgentLimitRecord>,
    primaryBackend: AgentBackend,
  ) {
    const primary = order[0];
    if (primary !== undefined) this.backends.set(primary.agent, primaryBackend);
    const recorded = deps.run.state.attemptAgent?.agent ?? null;
    this.last = order.some((slot) => slot.agent === recorded) ? recorded : null;
  }

  /**
   * The run's agents: the fallbacks this command line gives, else the recorded ones (a resume
   * keeps them; new flags replace them, with a notice). Each fallback's backend is made (and its
   * program checked) here, before the first attempt.
   */
  static async prepare(setup: LoopSetup, deps: LoopContext): Promise<AgentRoster> {
    const { options } = setup;
    const { run } = deps;
    const recorded = run.state.fallback ?? null;
    const given = options.fallbacks;
    let fallbacks: readonly AgentSlot[] = given ?? recorded?.agents ?? [];
    if (given !== null && recorded !== null && !sameSlots(given, recorded.agents)) {
      deps.notice?.(
        `--fallback-agent is now ${describeSlots(given)} (the run had ${describeSlots(recorded.agents)})`,
      );
    }
    // A recorded fallback that is now the primary (`resume --agent codex`) is the primary only.
    const dropped = fallbacks.filter((slot) => slot.agent === options.agent);
    if (dropped.length > 0) {
      fallbacks = fallbacks.filter((slot) => slot.agent !== options.agent);
      deps.notice?.(
        `--fallback-agent ${options.agent} is now the run's own agent (--agent ${options.agent}): it is no fallback`,
      );
    }
    const order = [{ agent: options.agent, model: options.model }, ...fallbacks];
    const limited = recorded === null ? {} : activeLimits(recorded.limited, deps.clock.now());
    const roster = new AgentRoster(deps, order, limited, deps.backend);
    for (const slot of fallbacks) roster.backendOf(slot);
    if (fallbacks.length > 0 || recorded !== null) await roster.record();
    return roster;
  }

  /** The fallbacks in order (for `run.started`); [] for a run without them. */
  get fallbacks(): AgentSlot[] {
    return this.order.slice(1).map((slot) => ({ ...slot }));
  }

  /** Whether this limit moves the story to the next agent instead of being waited out. */
  switches(limit: AgentLimit): boolean {
    return this.order.length > 1 && SWITCHING_KINDS.has(limit.kind);
  }

  /**
   * The agent of the next attempt: the first of the order not limited now (said with an
   * `agent.switched` when it is not the last attempt's), or null when every one is limited.
   */
  async pick(storyId: string, attempt: number): Promise<AttemptAgent | null> {
    const now = this.deps.clock.now();
    const still = { ...activeLimits(this.limited, now), ...(await this.limitedOnAccounts(now)) };
    if (JSON.stringify(still) !== JSON.stringify(this.limited)) {
      this.limited = still;
      await this.record();
    }
    const slot = chooseAgent(this.order, this.limited, now);
    if (slot === null) return null;
    // The first attempt of this invocation said too when it is not the primary's (its account
    // is limited: it is passed over).
    const from = this.last ?? this.order[0]?.agent ?? slot.agent;
    if (from !== slot.agent) this.announce(storyId, attempt, from, slot);
    this.last = slot.agent;
    return { ...slot, backend: this.backendOf(slot) };
  }

  /**
   * With fallbacks, the usage governor's word on each agent not limited now (docs/contract.md,
   * "One account, many runs"): an agent whose account another run found limited, or whose window
   * is past `--pause-at`, is limited until then like one that met the limit itself, so the story
   * goes on with the next agent instead of waiting. (Without fallbacks the loop waits for the
   * account before the attempt: run/unattended/limit-wait.ts.)
   */
  private async limitedOnAccounts(now: number): Promise<Record<string, AgentLimitRecord>> {
    const account = this.deps.account;
    const found: Record<string, AgentLimitRecord> = {};
    if (account === undefined || this.order.length < 2) return found;
    for (const slot of this.order) {
      if (isLimited(this.limited, slot.agent, now)) continue;
      const gate = await account.gate(now, slot.agent);
      if (gate.action === 'go') continue;
      const { until, kind, source, message, resetsAt } = gate;
      found[slot.agent] = { until: new Date(until).toISOString(), kind, source, message, resetsAt };
    }
    return found;
  }

  /** Whether the usage governor's gate is the roster's (a run with fallbacks), not the loop's. */
  get gatesAccounts(): boolean {
    return this.order.length > 1;
  }

  /** The attempt by `agent` was settled without a limit: its limits in a row start again. */
  settled(agent: string): void {
    this.consecutive.delete(agent);
  }

  /**
   * `agent` met a usage or rate limit (the attempt is reverted, not counted): it is limited until
   * its reset plus the margin (or the backoff), recorded. Null when another agent can go on at
   * once; else the agent that resets first, to be waited for.
   */
  async limitedBy(agent: string, limit: AgentLimit): Promise<AllLimited | null> {
    const consecutive = (this.consecutive.get(agent) ?? 0) + 1;
    this.consecutive.set(agent, consecutive);
    const now = this.deps.clock.now();
    const waitMs = limitWaitMs({ kind: limit.kind, resetsAt: limit.resetsAt, consecutive, now });
    this.limited = {
      ...activeLimits(this.limited, now),
      [agent]: { until: new Date(now + waitMs).toISOString(), ...limit },
    };
    await this.record();
    // The agent's account is limited for every run on it: the governor tells them.
    await this.deps.account?.hitLimit(limit, now + waitMs, agent);
    return chooseAgent(this.order, this.limited, now) === null ? this.allLimited() : null;
  }

  /** The agent that resets first, when every agent is limited now; null when one is not. */
  allLimited(): AllLimited | null {
    if (chooseAgent(this.order, this.limited, this.deps.clock.now()) !== null) return null;
    const first = firstToReset(this.order, this.limited);
    if (first === null) return null;
    const { until, ...report } = first.record;
    return { agent: first.agent, until: Date.parse(until), limit: report };
  }

  /**
   * The user stopped the wait for every agent: their limits are forgotten, as a stopped wait is
   * (a resume tries at once, and meets the limits again if they are still there).
   */
  async forgetLimits(): Promise<void> {
    this.limited = {};
    await this.record();
  }

  private announce(storyId: string, attempt: number, from: string, to: AgentSlot): void {
    const back =
      this.order.findIndex((slot) => slot.agent === to.agent) <
      this.order.findIndex((slot) => slot.agent === from);
    const record = back ? undefined : this.limited[from];
    this.deps.emit({
      type: 'agent.switched',
      storyId,
      attempt,
      from,
      to: to.agent,
      model: to.model,
      reason: back ? 'reset' : 'limit',
      kind: record?.kind ?? null,
      resetsAt: record?.resetsAt ?? null,
      until: record?.until ?? null,
    });
  }

  private backendOf(slot: AgentSlot): AgentBackend {
    let backend = this.backends.get(slot.agent);
    if (backend === undefined) {
      const make = this.deps.backendFor;
      if (make === undefined) throw new Error(`no backend for the fallback agent ${slot.agent}`);
      backend = make(slot);
      this.backends.set(slot.agent, backend);
    }
    return backend;
  }

  private async record(): Promise<void> {
    const fallback: FallbackRecord | null =
      this.order.length > 1
        ? { agents: this.fallbacks, limited: this.limited }
        : Object.keys(this.limited).length > 0
          ? { agents: [], limited: this.limited }
          : null;
    const before = JSON.stringify(this.deps.run.state.fallback ?? null);
    if (JSON.stringify(fallback) !== before) await this.deps.run.recordFallback(fallback);
  }
}

function sameSlots(a: readonly FallbackAgent[], b: readonly AgentSlot[]): boolean {
  return describeSlots(a) === describeSlots(b);
}

/** `codex (model o3), command` */
export function describeSlots(slots: readonly AgentSlot[]): string {
  if (slots.length === 0) return 'none';
  return slots
    .map((slot) => (slot.model === null ? slot.agent : `${slot.agent} (model ${slot.model})`))
    .join(', ');
}
