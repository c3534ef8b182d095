import type { RunEvent } from '../core/events.js';

/** Bytes waiting to be written to stdout above which agent chatter is dropped. */
const MAX_PENDING_BYTES = 4 * 1024 * 1024;

/**
 * Keeps ralphtool's memory bounded when the agent prints faster than stdout drains (a
 * pipe to a slow reader): past a limit, agent messages and tool lines are not queued but
 * counted, and one message says how many were left out. Every other event is always
 * written. The transcript on disk keeps the agent's whole output either way.
 */
export function gateAgentChatter(
  stream: { writableLength?: number },
  write: (event: RunEvent) => void,
): (event: RunEvent) => void {
  let dropped = 0;
  let droppedAt: { storyId: string; attempt: number } | null = null;
  return (event) => {
    const chatter = event.type === 'agent.message' || event.type === 'agent.tool';
    const full = (stream.writableLength ?? 0) > MAX_PENDING_BYTES;
    if (chatter && full) {
      dropped += 1;
      droppedAt = { storyId: event.storyId, attempt: event.attempt };
      return;
    }
    if (dropped > 0 && droppedAt !== null) {
      write({
        type: 'agent.message',
        ...droppedAt,
        text: `[ralphtool: ${dropped} agent line(s) not shown: they came faster than they could be written; the transcript has them all]`,
      });
      dropped = 0;
      droppedAt = null;
    }
    write(event);
  };
}
