import type { RunEvent } from '../../core/events.js';
import type { RunSummary, StorySummary } from '../../core/run-summary.js';

// The progress lines of fallback agents (docs/contract.md, "Fallback agents") and of `--force`,
// apart from progress.ts so that it stays about the run's story; the words of a limit's wait and
// of an agent switch are the shared reading's (format/event-reading.ts).

/** What `--force` saved, so the old branch can be found again. */
export function forcedLine(event: Extract<RunEvent, { type: 'run.forced' }>): string {
  return `--force: the old ${event.branch} (${event.oldSha.slice(0, 8)}) is saved as ${event.savedRef}${event.attemptRefs > 0 ? `, its ${event.attemptRefs} attempt ref(s) next to it` : ''}`;
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
