import type { RunEvent, TimedRunEvent } from '../core/events.js';

/** Stamps an event with the time it is emitted. */
export function timed(event: RunEvent, now: Date = new Date()): TimedRunEvent {
  return { ...event, ts: now.toISOString() };
}

/** One event as one NDJSON line (docs/contract.md, "Events"). */
export function toNdjsonLine(event: TimedRunEvent): string {
  return `${JSON.stringify({ type: event.type, ts: event.ts, ...withoutTypeAndTs(event) })}\n`;
}

function withoutTypeAndTs(event: TimedRunEvent): Record<string, unknown> {
  const { type: _type, ts: _ts, ...rest } = event;
  return rest;
}
