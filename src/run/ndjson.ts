import type { RunEvent, TimedRunEvent } from '../core/events.js';

/** The last millisecond stamped and its ISO text: a flood of events shares a few of them. */
let lastStamp = { ms: Number.NaN, iso: '' };

/** Stamps an event with the time it is emitted; `type` and `ts` come first, as in NDJSON. */
export function timed(event: RunEvent, now?: Date): TimedRunEvent {
  const ms = now ? now.getTime() : Date.now();
  if (ms !== lastStamp.ms) lastStamp = { ms, iso: new Date(ms).toISOString() };
  // Assigned onto an object that holds `type` and `ts` already, so that they stay first.
  return Object.assign({ type: event.type, ts: lastStamp.iso }, event);
}

/** One event as one NDJSON line (docs/contract.md, "Events"): `type`, `ts`, then the rest. */
export function toNdjsonLine(event: TimedRunEvent): string {
  const ordered = startsWithTypeAndTs(event)
    ? event
    : Object.assign({ type: event.type, ts: event.ts }, event);
  return `${JSON.stringify(ordered)}\n`;
}

/** Whether the object's first two keys are `type` and `ts` (as `timed` makes them). */
function startsWithTypeAndTs(event: TimedRunEvent): boolean {
  let index = 0;
  for (const key in event) {
    if (key !== (index === 0 ? 'type' : 'ts')) return false;
    if (++index === 2) return true;
  }
  return false;
}
