import type { LimitKind, TimedRunEvent } from '../../core/events.js';
import { oneLine } from '../../format/text.js';

/** A usage-limit wait going on, as the loop screen counts it down. Pure. */
export interface LimitWaitView {
  storyId: string;
  kind: LimitKind;
  source: string;
  /** When the wait ends, epoch ms (the event's time plus its `waitMs`). */
  until: number;
}

/** The wait an `agent.limited` starts; any other event of the loop's but the agent's ends it. */
export function waitingAfter(
  waiting: LimitWaitView | null,
  event: TimedRunEvent,
  at: number,
): LimitWaitView | null {
  if (event.type === 'agent.limited') {
    const { storyId, kind, source } = event;
    return { storyId, kind, source: oneLine(source), until: at + event.waitMs };
  }
  const ends =
    event.type === 'limit.resumed' ||
    event.type === 'story.started' ||
    event.type === 'run.awaiting-choice' ||
    event.type === 'run.finished';
  return ends ? null : waiting;
}
