import type { RemoteRun } from '../../remote/remote-runs.js';
import type { Style } from '../../format/style.js';
import { table } from '../../format/table.js';
import { formatCost, formatDuration, relativeTime } from '../../format/units.js';
import { clean } from '../../format/text.js';

/** `status --remote`: one row per run recorded on the remote, with who holds it now. */
export function renderRemoteRuns(
  remote: string,
  runs: readonly RemoteRun[],
  style: Style,
  now: Date,
): string {
  if (runs.length === 0) {
    return `no runs recorded on ${remote} (a run with \`--push ${remote}\` records one)\n`;
  }
  const rows = runs.map((run) => {
    const state = run.state;
    const stories = state === null ? [] : Object.values(state.stories);
    const done = stories.filter((s) => s.completed).length;
    return [
      clean(run.change),
      state === null
        ? 'unreadable record'
        : state.status === 'finished'
          ? `finished (${state.choice ?? state.outcome ?? 'ended'})`
          : `active${state.outcome === null ? '' : ` (${state.outcome})`}`,
      // The stories of tasks.md as the run last read them; a record written before that was
      // kept knows only the stories it started.
      state === null ? '' : `${done}/${state.storiesTotal ?? `${stories.length}+`} stories`,
      // A run whose agent reports no cost (Codex, a command) records 0: unknown, not $0.00.
      state === null ? '' : formatCost(state.costUsd > 0 ? state.costUsd : null),
      state === null ? '' : `updated ${relativeTime(state.updatedAt, now)} on ${clean(state.host)}`,
      claimWords(run, now),
    ];
  });
  const header = style.bold(`runs recorded on ${remote}`);
  return `${header}\n${table(rows).join('\n')}\n`;
}

function claimWords(run: RemoteRun, now: Date): string {
  if (run.claim === null) return 'unclaimed';
  const info = run.claim.info;
  if (info === null) return `claimed (unreadable claim ${run.claim.sha.slice(0, 8)})`;
  const age = Math.max(0, now.getTime() - Date.parse(info.heartbeatAt));
  return `claimed by ${clean(info.host)} (pid ${info.pid}), heartbeat ${formatDuration(age)} ago`;
}
