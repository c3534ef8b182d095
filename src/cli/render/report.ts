import type { VerifyResult } from '../../core/events.js';
import { markdownCell, sandboxLine, type RunReport } from '../../core/run-report.js';
import { sandboxBlockedText } from '../../core/sandbox-blocks.js';
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
    ...(report.sandbox === null ? [] : [`- ${markdownCell(sandboxLine(report.sandbox))}`]),
    ...blockedLines(report, (text) => markdownCell(text)).map((line) => `- ${line}`),
    ...gateLines(report, (text) => markdownCell(text)).map((line) => `- ${line}`),
    ...reviewSection(report.review),
    ...storySections(report),
    ...filesSection(report.files),
  ];
  return `${lines.join('\n')}\n`;
}

/**
 * Per story that was tried: its attempts with each failure's reason, its verify results and
 * flakes, and the tests it changed with what let them through.
 */
function storySections(report: RunReport): string[] {
  const tried = report.stories.filter((s) => s.attempts > 0);
  if (tried.length === 0) return [];
  const lines = ['', '### Stories'];
  for (const s of tried) {
    const how = s.done
      ? `accepted on attempt ${s.attempts}`
      : `not accepted after ${s.attempts} attempt(s)`;
    lines.push('', `**${markdownCell(s.id)}. ${markdownCell(s.title)}**: ${how}`);
    for (const f of s.failures) {
      lines.push(`- attempt ${f.attempt} failed (${f.kind}): ${markdownCell(clip(f.reason))}`);
    }
    for (const v of s.verify) lines.push(`- verify ${verifyWord(v)}: \`${codeSpan(v.command)}\``);
    if (s.flakes > 0)
      lines.push(`- flaky verify runs (failed, then passed when run again): ${s.flakes}`);
    lines.push(
      s.testChanges.length === 0
        ? '- tests changed: no'
        : `- tests changed: ${s.testChanges.map((c) => markdownCell(c)).join('; ')}`,
    );
  }
  return lines;
}

/** The independent review's verdict, and per scenario met (with its evidence) or not (why). */
function reviewSection(review: RunReport['review']): string[] {
  if (review === null) return [];
  const verdict =
    review.verdict === 'approved'
      ? `✅ approved (round ${review.round})`
      : `❌ not approved (round ${review.round}): ${markdownCell(review.reasons ?? '')}`;
  const met = (m: boolean | null): string =>
    m === true ? '✅ met' : m === false ? '❌ not met' : '— not judged';
  return [
    '',
    '### Independent review',
    '',
    verdict,
    ...(review.scenarios.length === 0
      ? []
      : [
          '',
          '| Requirement | Scenario | Verdict | Evidence or why not |',
          '| --- | --- | --- | --- |',
          ...review.scenarios.map(
            (s) =>
              `| ${markdownCell(`${s.capability}: ${s.requirement}`)} | ${markdownCell(s.scenario)} | ${met(s.met)} | ${markdownCell(s.note)} |`,
          ),
        ]),
  ];
}

/** The files the run changed, as a table of lines added and removed. */
function filesSection(files: RunReport['files']): string[] {
  if (files === null || files.length === 0) return [];
  const added = files.reduce((n, f) => n + (f.added ?? 0), 0);
  const removed = files.reduce((n, f) => n + (f.removed ?? 0), 0);
  return [
    '',
    `### Files changed (${files.length}, +${added} −${removed})`,
    '',
    '| File | + | − |',
    '| --- | ---: | ---: |',
    ...files.map(
      (f) => `| \`${codeSpan(f.path)}\` | ${f.added ?? 'binary'} | ${f.removed ?? 'binary'} |`,
    ),
  ];
}

function verifyWord(v: VerifyResult): string {
  if (!v.passed) return v.tolerated === true ? 'failed (it failed before the run too)' : 'failed';
  return v.flaky === true ? 'passed on its rerun (flaky)' : 'passed';
}

/** Text inside a code span of a table: one line, no backquote, pipes escaped. */
function codeSpan(text: string): string {
  return text
    .replace(/\r?\n|\r/g, ' ')
    .replace(/`/g, "'")
    .replace(/\|/g, '\\|');
}

/** A failure reason in a pull request's body: its start (the run's transcripts have the rest). */
function clip(text: string): string {
  return text.length > 300 ? `${text.slice(0, 299)}…` : text;
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

/** Per story, what the sandbox refused its agents (`--sandbox`; none when it refused nothing). */
function blockedLines(report: RunReport, text: (s: string) => string): string[] {
  return report.stories
    .filter((s) => s.sandboxBlocks.length > 0)
    .map((s) => `Story ${text(s.id)}: ${text(sandboxBlockedText(s.sandboxBlocks))}`);
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
  const notes = [
    ...(report.sandbox === null ? [] : [sandboxLine(report.sandbox)]),
    ...blockedLines(report, clean).map((line) => style.yellow(line)),
    ...gateLines(report, clean).map((line) => style.yellow(line)),
  ];
  return `${head}\n${[...table(rows), ...notes].join('\n')}\n`;
}
