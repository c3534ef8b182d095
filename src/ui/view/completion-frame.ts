import { knownCost } from '../../core/run-summary.js';
import { formatCost, formatDuration } from '../../format/units.js';
import type { CompletionChoice } from '../../core/events.js';
import { exhaustedMessage } from '../../core/loop.js';
import type { WatchedRun } from '../state/app-state.js';
import { elapsedMs, storiesDone } from '../state/loop-status.js';
import { oneLine, wrap } from '../../format/text.js';
import { blank, bodyHeight, row, type Frame, type Row, type Size } from './frame.js';

/** Screen 4: why the loop ended, and the Cleanup / Keep choice. */
export function completionFrame(run: WatchedRun, size: Size, now: number): Frame {
  const view = run.view;
  const branch = view.started?.branch ?? `ralph/${run.change}`;
  const original = view.started?.originalBranch ?? 'the original branch';
  const header: Row[] = [
    [
      { text: 'ralphtool', tone: 'title' },
      { text: ' › ', tone: 'dim' },
      { text: oneLine(run.change), tone: 'title' },
      { text: ' › the run has ended', tone: 'dim' },
    ],
  ];
  const body: Row[] = [];
  const why = reason(run);
  for (const line of wrap(why.text, size.columns, '  ')) body.push(row(line, why.tone));
  body.push(
    row(
      `Stories ${storiesDone(view)}/${view.summary.stories.length} done · cost ${formatCost(knownCost(view.summary))} · time ${formatDuration(elapsedMs(view, now))}`,
    ),
  );
  body.push(row(`Current branch ${branch} · original branch ${original}`, 'dim'));
  body.push(blank);
  const explain: Record<CompletionChoice, string> = {
    cleanup: `back to ${original} with all the work as uncommitted changes`,
    keep: `stay on ${branch} with one commit per story`,
  };
  for (const choice of ['cleanup', 'keep'] as const) {
    const selected = run.completionChoice === choice;
    const label = `${selected ? '› ' : '  '}${choice === 'cleanup' ? 'Cleanup' : 'Keep   '}`;
    const lines = wrap(explain[choice], Math.max(10, size.columns - label.length - 2));
    lines.forEach((line, i) => {
      body.push([
        {
          text: i === 0 ? label : ' '.repeat(label.length),
          tone: selected && i === 0 ? 'selected' : 'plain',
        },
        { text: `  ${line}`, tone: selected ? 'plain' : 'dim' },
      ]);
    });
  }
  body.push(blank);
  if (run.applying) body.push(row(`applying ${run.applying}… git is at work`, 'warn'));
  else if (run.hint) body.push(row(run.hint, 'warn'));
  const ex = view.exhausted;
  const shownAbove = ex ? exhaustedMessage(ex.storyId, ex.attempts, ex.reason) : null;
  for (const e of view.errors) {
    if (!e.fatal && e.message === shownAbove) continue;
    for (const line of wrap(`${e.fatal ? 'error' : 'warning'}: ${e.message}`, size.columns, '  ')) {
      body.push(row(line, 'bad'));
    }
  }
  const footer: Row[] = [
    row(
      run.applying
        ? 'please wait…'
        : '←/↑ Cleanup · →/↓ Keep · Enter apply · q×3 quit without choosing',
      'dim',
    ),
  ];
  return { header, body, top: 0, height: bodyHeight(size, header.length, footer.length), footer };
}

function reason(run: WatchedRun): { text: string; tone: 'good' | 'bad' | 'warn' } {
  const view = run.view;
  switch (view.awaiting?.outcome ?? view.finished?.outcome) {
    case 'complete': {
      const n = view.summary.stories.length;
      return { text: n === 1 ? 'The story is done.' : `All ${n} stories are done.`, tone: 'good' };
    }
    case 'max-retries': {
      const ex = view.exhausted;
      return {
        text: ex
          ? `Story ${oneLine(ex.storyId)} used all ${ex.attempts} attempts. Last reason: ${ex.reason}`
          : 'A story used all its attempts.',
        tone: 'bad',
      };
    }
    case 'stopped':
      return { text: 'Stopped before the end: the last attempt was reverted.', tone: 'warn' };
    case 'error': {
      const fatal = [...view.errors].reverse().find((e) => e.fatal);
      return { text: `Stopped by an error${fatal ? `: ${fatal.message}` : '.'}`, tone: 'bad' };
    }
    case 'budget': {
      const reached = view.limitReached;
      const raise = reached?.limit === 'max-story-cost' ? '--max-story-cost' : '--max-cost';
      return {
        text: `The budget is spent${reached ? `: ${reached.message}` : ''}. To go on, raise it: ralphtool resume ${oneLine(view.change)} ${raise} <more>`,
        tone: 'warn',
      };
    }
    case 'time-limit':
      return {
        text: `Stopped at --max-duration${view.limitReached ? `: ${view.limitReached.message}` : ''}.`,
        tone: 'warn',
      };
    case 'not-approved':
      return {
        text: `The independent review did not approve the change${view.review ? `: ${view.review.reasons}` : '.'} To review again: ralphtool resume ${oneLine(view.change)}`,
        tone: 'bad',
      };
    default:
      return { text: 'The run has ended.', tone: 'warn' };
  }
}
