import { resumeCommand } from '../../core/budget.js';
import { answerCommand } from '../../core/question.js';
import { knownCost } from '../../core/run-summary.js';
import { formatCost, formatDuration, plural } from '../../format/units.js';
import { countTasks } from '../../core/change.js';
import type { FileStatus } from '../controller.js';
import type { CompletionChoice, RunOutcome } from '../../core/events.js';
import type { WatchedRun } from '../state/app-state.js';
import { elapsedMs, storiesDone, storyStatus } from '../state/loop-status.js';
import { clampTop } from '../state/scroll.js';
import { oneLine, wrap } from '../../format/text.js';
import { blank, bodyHeight, row, type Frame, type Row, type Size, type Tone } from './frame.js';

const FILE_TONE: Record<FileStatus, Tone> = { A: 'good', M: 'warn', D: 'bad', R: 'accent' };

/** Screen 5: what the run did. */
export function resultFrame(run: WatchedRun, size: Size, now: number): Frame {
  const view = run.view;
  const finished = view.finished;
  const original =
    finished?.originalBranch ?? view.started?.originalBranch ?? 'the original branch';
  const branch = finished?.branch ?? view.started?.branch ?? '';
  const header: Row[] = [
    [
      { text: 'ralphtool', tone: 'title' },
      { text: ' › ', tone: 'dim' },
      { text: oneLine(run.change), tone: 'title' },
      { text: ' › result', tone: 'dim' },
    ],
  ];
  const where =
    finished?.choice === 'cleanup'
      ? finished.home !== undefined
        ? `Cleanup done: the work is in ${finished.home} as uncommitted changes.`
        : `Cleanup done: you are on ${original} with the work as uncommitted changes.`
      : finished?.choice === 'keep'
        ? `Kept: you are on ${branch} with one commit per story.`
        : finished?.outcome === 'blocked'
          ? 'Blocked: the agent asked a question only you can answer.'
          : 'No completion option was applied.';
  header.push(row(where, 'good'));
  for (const line of continueHint(oneLine(run.change), finished)) {
    for (const part of wrap(line, size.columns, '    ')) header.push(row(part, 'warn'));
  }

  const body: Row[] = [];
  const tasks =
    run.result.change.status === 'ready'
      ? (() => {
          const t = countTasks(run.result.change.value.stories);
          return `tasks ${t.done}/${t.total} done`;
        })()
      : run.result.change.status === 'loading'
        ? 'tasks …'
        : 'tasks: could not re-read tasks.md';
  const done = finished?.storiesCompleted ?? storiesDone(view);
  const total = finished?.storiesTotal ?? view.summary.stories.length;
  body.push(
    row(
      `Stories ${done}/${total} done · ${tasks} · cost ${formatCost(view.summary.costKnown ? (finished?.costUsd ?? view.summary.costUsd) : null)} · time ${formatDuration(elapsedMs(view, now))}`,
    ),
  );
  body.push(blank);
  const files = run.result.files;
  if (files.status === 'loading') body.push(row('Changed files: reading…', 'dim'));
  else if (files.status === 'error')
    body.push(row(`Changed files: could not list them: ${oneLine(files.message)}`, 'bad'));
  else {
    body.push(row(`Changed files against ${original} (${files.value.length}):`, 'title'));
    if (files.value.length === 0) body.push(row('  none', 'dim'));
    for (const f of files.value) {
      const path = f.from ? `${oneLine(f.from)} → ${oneLine(f.path)}` : oneLine(f.path);
      body.push([{ text: `  ${f.status} `, tone: FILE_TONE[f.status] }, { text: path }]);
    }
  }
  body.push(blank);
  body.push(row('Stories:', 'title'));
  for (const s of view.summary.stories) {
    const status = storyStatus(view, s.id);
    const symbol = status === 'done' ? '✓' : status === 'failed' ? '✗' : '·';
    const tone: Tone = status === 'done' ? 'good' : status === 'failed' ? 'bad' : 'dim';
    const text = `  ${symbol} ${oneLine(s.id)} ${s.title} · ${plural(s.attempts, 'attempt')} · ${formatCost(knownCost(s))} · ${formatDuration(s.durationMs)}`;
    for (const line of wrap(text, size.columns, '      ')) body.push(row(line, tone));
  }
  if (view.errors.length > 0) {
    body.push(blank);
    body.push(row('Errors:', 'bad'));
    for (const e of view.errors) {
      for (const line of wrap(
        `  ${e.fatal ? 'error' : 'warning'}: ${e.message}`,
        size.columns,
        '    ',
      ))
        body.push(row(line, 'bad'));
    }
  }
  const footer: Row[] = [row('↑/↓ scroll · Esc back to changes · q quit', 'dim')];
  const height = bodyHeight(size, header.length, footer.length);
  return {
    header,
    body,
    top: clampTop(run.result.scroll, { total: body.length, viewport: height }),
    height,
    footer,
    moreBelowHint: true,
  };
}

/**
 * How to go on with a run that is not over, with the exact commands (each on a row of its own,
 * so that a narrow terminal never splits one): a run that stopped on an error (or without a
 * completion choice) stays at its last checkpoint, one kept with stories left stays
 * resumable. Empty when the run is over.
 */
export function continueHint(
  change: string,
  finished: {
    outcome: RunOutcome;
    choice: CompletionChoice | null;
    question?: { storyId: string; text: string };
  } | null,
): string[] {
  if (finished === null) return [];
  if (finished.question !== undefined) {
    // No completion choice: the run waits at its last checkpoint for the answer.
    return [
      `Story ${oneLine(finished.question.storyId)} asks: ${oneLine(finished.question.text)}`,
      'Answer it on the command line and the run goes on from its last checkpoint:',
      `  answer:   ${answerCommand(change)}   (or --answer-file <file>)`,
      `  end it:   ralphtool finish ${change} --cleanup|--keep`,
    ];
  }
  const commands = [
    `  continue: ${resumeCommand(change, finished.outcome === 'max-retries' ? 'max-retries' : null, null)}   (r on the change list)`,
    `  end it:   ralphtool finish ${change} --cleanup|--keep`,
  ];
  if (finished.outcome === 'error') {
    return [
      'The run stopped on an error and stays at its last checkpoint; fix the cause (see Errors), then',
      ...commands,
    ];
  }
  if (finished.choice === null) return ['The run stays at its last checkpoint:', ...commands];
  if (finished.choice === 'keep' && finished.outcome !== 'complete') {
    return ['Kept incomplete: the run can go on.', ...commands];
  }
  return [];
}
