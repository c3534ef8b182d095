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
    ...gateLines(report, (text) => markdownCell(text)).map((line) => `- ${line}`),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * What the test gate let through and the flaky verify runs, one line each (none when nothing
 * happened): a reviewer sees whether the tests were changed, and why.
 */
function gateLines(report: RunReport, text: (s: string) => string): string[] {
  const lines: string[] = [];
  for (const s of report.stories) {
    for (const change of s.testChanges) {
      lines.push(`Story ${text(s.id)} changed tests: ${text(change)}`);
    }
  }
  const flaky = report.stories.filter((s) => s.flakes > 0);
  if (flaky.length > 0) {
    const total = flaky.reduce((n, s) => n + s.flakes, 0);
    const where = flaky.map((s) => `story ${text(s.id)}: ${s.flakes}`).join(', ');
    lines.push(`Flaky verify runs (failed, then passed when run again): ${total} (${where})`);
  }
  return lines;
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
  const notes = gateLines(report, clean).map((line) => style.yellow(line));
  return `${head}\n${[...table(rows), ...notes].join('\n')}\n`;
}
