import { markdownCell, type RunReport } from '../../core/run-report.js';
import type { Style } from '../../format/style.js';
import { table } from '../../format/table.js';
import { clean } from '../../format/text.js';
import { formatCost, formatDuration } from '../../format/units.js';

function cost(usd: number | null): string {
  return usd === null ? '—' : formatCost(usd);
}

function ending(report: RunReport): string {
  if (report.status === 'finished')
    return `finished (${report.choice ?? report.outcome ?? 'ended'})`;
  return report.outcome === null ? 'in progress' : `stopped (${report.outcome}), resumable`;
}

/** `report --markdown`: a pull request's body. */
export function renderReportMarkdown(report: RunReport): string {
  const done = report.stories.filter((s) => s.done).length;
  const lines = [
    `## ralphtool: ${markdownCell(report.change)}`,
    '',
    `**${done}/${report.stories.length} stories** · ${ending(report)} · branch \`${report.branch}\`` +
      (report.remote === null ? '' : ` · pushed to \`${markdownCell(report.remote)}\``),
    '',
    '| Story | Title | Status | Attempts | Cost | Time |',
    '| --- | --- | --- | ---: | ---: | ---: |',
    ...report.stories.map(
      (s) =>
        `| ${markdownCell(s.id)} | ${markdownCell(s.title)} | ${s.done ? '✅ done' : '⏳ left'} | ${s.attempts} | ${cost(s.costUsd)} | ${formatDuration(s.durationMs)} |`,
    ),
    `| **Total** | | **${done}/${report.stories.length}** | **${report.stories.reduce((n, s) => n + s.attempts, 0)}** | **${cost(report.costUsd)}** | **${formatDuration(report.durationMs)}** |`,
    '',
  ];
  return `${lines.join('\n')}\n`;
}

/** `report`: the same as plain text for a terminal. */
export function renderReport(report: RunReport, style: Style): string {
  const done = report.stories.filter((s) => s.done).length;
  const rows = [
    ['story', 'title', 'status', 'attempts', 'cost', 'time'].map((h) => style.bold(h)),
    ...report.stories.map((s) => [
      clean(s.id),
      clean(s.title),
      s.done ? style.green('done') : 'left',
      String(s.attempts),
      cost(s.costUsd),
      formatDuration(s.durationMs),
    ]),
  ];
  const head = `${style.bold(report.change)}: ${done}/${report.stories.length} stories · ${ending(report)} · branch ${report.branch} · ${cost(report.costUsd)}`;
  return `${head}\n${table(rows).join('\n')}\n`;
}
