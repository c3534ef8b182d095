import type { RunEvent } from '../../core/events.js';
import { oneLine, clip } from '../../format/text.js';
import { formatDuration, formatTokens } from '../../format/units.js';

/** How long an agent is silent before the first line, and the pace of the next ones. */
export const SILENCE_PACE_MS = 30_000;

// Headless on a terminal (docs/contract.md, "`run <change>` and `resume <change>`"): while an
// agent works without a word, one line at a steady pace says it is still at work. Its clock is
// the caller's: `see` and `due` take the time, so a test moves it on instead of waiting.

interface Watched {
  storyId: string;
  attempt: number;
  startedAt: number;
  /** The last time the agent said anything, or the last line this printed. */
  quietSince: number;
  lastTool: string | null;
}

export class SilenceLine {
  private watched: Watched | null = null;
  /** Tokens of the attempts that have ended, as their results said. */
  private tokens = 0;

  constructor(private readonly paceMs = SILENCE_PACE_MS) {}

  /** Follows the run: an attempt starts and ends, its agent speaks. */
  see(event: RunEvent, now: number): void {
    switch (event.type) {
      case 'story.started':
        this.watched = {
          storyId: event.storyId,
          attempt: event.attempt,
          startedAt: now,
          quietSince: now,
          lastTool: null,
        };
        return;
      case 'agent.tool':
        if (this.watched === null) return;
        this.watched.quietSince = now;
        this.watched.lastTool = `${event.name}${event.summary ? ` ${event.summary}` : ''}`;
        return;
      case 'agent.message':
      case 'agent.notice':
      case 'agent.unrecognised':
        if (this.watched !== null) this.watched.quietSince = now;
        return;
      case 'agent.result': {
        const t = event.tokens;
        this.tokens += t.input + t.output + t.cacheRead + t.cacheWrite;
        this.watched = null;
        return;
      }
      case 'attempt.failed':
      case 'agent.limited':
      case 'story.blocked':
      case 'run.finished':
        this.watched = null;
        return;
      default:
        return;
    }
  }

  /** The line to print now, when the agent has been silent a whole pace since the last one. */
  due(now: number): string | null {
    const w = this.watched;
    if (w === null || now - w.quietSince < this.paceMs) return null;
    w.quietSince = now;
    const parts = [
      `⋯ still working: ${formatDuration(now - w.startedAt)} into attempt ${w.attempt}`,
    ];
    parts.push(w.lastTool === null ? 'no tool used yet' : `last tool: ${oneLine(w.lastTool)}`);
    if (this.tokens > 0) parts.push(`${formatTokens(this.tokens)} so far`);
    return `  ${clip(parts.join(' · '), 158)}`;
  }
}
