import type { RunEvent } from '../../core/events.js';
import type { RunSummary, StorySummary } from '../../core/run-summary.js';
import { clockTime } from '../../format/clock.js';
import { formatDuration } from '../../format/units.js';

// The progress lines of usage limits and fallback agents (docs/contract.md, "Usage limits",
// "Fallback agents"), apart from progress.ts so that it stays about the run's story.

/**
 * The line a usage-limit wait starts with: `⏸ waiting 1h12m, until 15:02: usage limit (exit 75):
 * <message>; the attempt does not count`, the end in the user's local time.
 */
export function limitedLine(
  event: Extract<RunEvent, { type: 'agent.limited' }>,
  now: number,
): string {
  const until = clockTime(now + event.waitMs, now);
  // How long and until when first: the rest of a long vendor message may be cut on a terminal.
  return `⏸ waiting ${formatDuration(event.waitMs)}, until ${until}: ${event.kind} limit (${event.source}): ${event.message}; the attempt does not count`;
}

/** What `--force` saved, so the old branch can be found again. */
export function forcedLine(event: Extract<RunEvent, { type: 'run.forced' }>): string {
  return `--force: the old ${event.branch} (${event.oldSha.slice(0, 8)}) is saved as ${event.savedRef}${event.attemptRefs > 0 ? `, its ${event.attemptRefs} attempt ref(s) next to it` : ''}`;
}

/**
 * The line of an agent switch: `⇄ claude is at its usage limit until 15:02 (claude
 * rate_limit_event): story 1 goes on with codex at once; the attempt does not count`, or, its
 * limit over, `⇄ claude's limit is over: story 2 goes back to claude`.
 */
export function switchedLine(
  event: Extract<RunEvent, { type: 'agent.switched' }>,
  now: number,
): string {
  const model = event.model === null ? '' : ` (model ${event.model})`;
  if (event.reason === 'reset') {
    return `⇄ ${event.to}'s limit is over: story ${event.storyId} goes back to ${event.to}${model}`;
  }
  const until = event.until === null ? '' : ` until ${clockTime(Date.parse(event.until), now)}`;
  const kind = event.kind === null ? 'a' : `its ${event.kind}`;
  return `⇄ ${event.from} is at ${kind} limit${until}: story ${event.storyId} goes on with ${event.to}${model} at once; the attempt does not count`;
}

/** ` · codex` after a story's heading when the run has fallback agents: who runs the attempt. */
export function agentTag(
  summary: RunSummary,
  event: Extract<RunEvent, { type: 'story.started' }>,
): string {
  if (!summary.withFallbacks || event.agent === undefined) return '';
  return ` · ${event.agent}${event.model ? ` (${event.model})` : ''}`;
}

/** The summary's AGENT column (the agents that ran each story), only for runs with fallbacks. */
export function agentColumn(summary: RunSummary): {
  header: string[];
  cells: (story: StorySummary) => string[];
} {
  if (!summary.withFallbacks) return { header: [], cells: () => [] };
  return {
    header: ['AGENT'],
    cells: (story) => [story.agents.length > 0 ? story.agents.join(', ') : '—'],
  };
}
