import type { LimitKind } from './events.js';

// Which agent runs the next attempt when fallback agents are given (docs/contract.md, "Fallback
// agents"). Pure: the loop (src/run/unattended/agent-roster.ts) gives it the clock and the records.

/** An agent of the run and the model it is given (null: the agent's own). */
export interface AgentSlot {
  agent: string;
  model: string | null;
}

/** Until when an agent is limited, and by what (as its AgentLimit said). */
export interface AgentLimitRecord {
  /** ISO 8601: the reset plus the margin, or the wait policy's backoff. */
  until: string;
  kind: LimitKind;
  source: string;
  message: string;
  resetsAt: string | null;
}

/**
 * The limits that move a story to the next agent: a spent usage window or a rate limit lasts
 * minutes to hours, and belongs to one vendor's account. A transient API error (overloaded, 5xx,
 * no connection) is waited out on the same agent: it lasts seconds, and a switch would change
 * the agent in the middle of a story for a hiccup.
 */
export const SWITCHING_KINDS: ReadonlySet<LimitKind> = new Set(['usage', 'rate']);

/** Whether `agent` is limited at `now` by its record. */
export function isLimited(
  limited: Readonly<Record<string, AgentLimitRecord>>,
  agent: string,
  now: number,
): boolean {
  const record = limited[agent];
  return record !== undefined && Date.parse(record.until) > now;
}

/**
 * The agent of the next attempt: the first of `order` (the primary, then the fallbacks as given)
 * that is not limited at `now`; null when every one is.
 */
export function chooseAgent(
  order: readonly AgentSlot[],
  limited: Readonly<Record<string, AgentLimitRecord>>,
  now: number,
): AgentSlot | null {
  return order.find((slot) => !isLimited(limited, slot.agent, now)) ?? null;
}

/** Of the agents of `order` that are limited, the one whose limit ends first; null when none. */
export function firstToReset(
  order: readonly AgentSlot[],
  limited: Readonly<Record<string, AgentLimitRecord>>,
): { agent: string; record: AgentLimitRecord } | null {
  let best: { agent: string; record: AgentLimitRecord } | null = null;
  for (const { agent } of order) {
    const record = limited[agent];
    if (record === undefined) continue;
    if (best === null || Date.parse(record.until) < Date.parse(best.record.until)) {
      best = { agent, record };
    }
  }
  return best;
}

/** The records still in force at `now` (an agent whose limit has passed is forgotten). */
export function activeLimits(
  limited: Readonly<Record<string, AgentLimitRecord>>,
  now: number,
): Record<string, AgentLimitRecord> {
  return Object.fromEntries(
    Object.entries(limited).filter(([, record]) => Date.parse(record.until) > now),
  );
}
