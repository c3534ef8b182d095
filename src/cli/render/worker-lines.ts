import type { WorkAction, WorkChoice } from '../../core/work-left.js';
import { table } from '../../format/table.js';
import type { Style } from '../../format/style.js';
import { oneLine } from '../../format/text.js';
import { formatDuration } from '../../format/units.js';
import type { WorkerEvent, WorkerResult } from '../../run/worker/worker-types.js';

/** The command a worker ran for a change, as a person would type it. */
export function actionCommand(change: string, action: WorkAction, remote: string): string {
  if (action === 'run') return `ralphtool run ${change} --push ${remote}`;
  if (action === 'resume') return `ralphtool resume ${change}`;
  return `ralphtool resume ${change} --from ${remote}`;
}

/** One plain line for a worker's choice (`worker.ended` is the summary's). */
export function workerLine(event: WorkerEvent, remote: string, style: Style): string | null {
  const name = (change: string): string => style.cyan(oneLine(change));
  switch (event.type) {
    case 'worker.took':
      return `worker: took ${name(event.change)} (${oneLine(event.why)}): ${actionCommand(event.change, event.action, remote)}`;
    case 'worker.skipped':
      return `worker: left ${name(event.change)}: ${oneLine(event.why)}`;
    case 'worker.lost':
      return `worker: ${name(event.change)} is not this worker's: ${oneLine(event.why)}; looking again`;
    case 'worker.ran':
      return `worker: ${name(event.change)} ended with exit ${String(event.exitCode)}${event.error === null ? '' : `: ${oneLine(event.error)}`}`;
    case 'worker.idle':
      return `worker: no change has work left on ${remote}; looking again every ${formatDuration(event.pollMs)} (Ctrl-C ends the worker)`;
    case 'worker.time-up':
      return `worker: --max-duration is out: ${name(event.change)} and the rest are left for the next worker`;
    case 'worker.ended':
      return null;
  }
}

/** The end summary: what this worker finished, what it ran that did not finish, what it left. */
export function workerSummary(result: WorkerResult, remote: string, style: Style): string[] {
  const lines = [style.bold(`worker on ${remote}:`)];
  const finished = result.taken.filter((t) => t.exitCode === 0);
  const unfinished = result.taken.filter((t) => t.exitCode !== 0);
  if (result.taken.length === 0)
    lines.push(`  nothing to do: no change has work left on ${remote}`);
  if (finished.length > 0) {
    lines.push(`  finished: ${finished.map((t) => oneLine(t.change)).join(', ')}`);
  }
  for (const t of unfinished) {
    const why = t.error === null ? (EXIT_WORDS[t.exitCode] ?? 'ended') : oneLine(t.error);
    lines.push(`  not finished: ${oneLine(t.change)}: ${why} (exit ${String(t.exitCode)})`);
  }
  for (const s of result.skipped) {
    lines.push(`  left: ${oneLine(s.change)}: ${oneLine(s.why)}`);
  }
  return lines;
}

const EXIT_WORDS: Partial<Record<number, string>> = {
  1: 'a runtime failure',
  2: 'refused',
  3: 'a story used up its attempts',
  4: 'the agent asked a question',
  5: 'a limit was reached (resumable)',
  130: 'stopped',
};

/** `worker --list`: what a worker would do now with each change, one row each. */
export function renderWorkList(
  remote: string,
  choices: readonly WorkChoice[],
  style: Style,
): string {
  if (choices.length === 0) return `no changes here and no runs recorded on ${remote}\n`;
  const rows = choices.map((c) => [
    oneLine(c.change),
    c.action === 'skip'
      ? 'left'
      : c.action === 'run'
        ? 'run'
        : c.action === 'resume'
          ? 'resume'
          : 'resume --from',
    oneLine(c.why),
  ]);
  return `${style.bold(`what a worker on ${remote} would do now`)}\n${table(rows).join('\n')}\n`;
}
