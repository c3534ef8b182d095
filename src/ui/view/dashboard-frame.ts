import type { CompletionChoice, RunOutcome } from '../../core/events.js';
import { knownCost } from '../../core/run-summary.js';
import { accountWindowText } from '../../format/account-window.js';
import { clockTime } from '../../format/clock.js';
import { formatCost, formatDuration } from '../../format/units.js';
import { clip, columns, fit, oneLine, wrap } from '../../format/text.js';
import type { UiRunOptions } from '../controller.js';
import { rowState, type Dashboard, type DashboardRun, type RowState } from '../state/dashboard.js';
import { keepInView } from '../state/list.js';
import { elapsedMs, storiesDone } from '../state/loop-status.js';
import { pressesLeft } from '../state/quit-presses.js';
import { blank, bodyHeight, row, type Frame, type Row, type Size, type Tone } from './frame.js';
import { loopFrame } from './loop-frame.js';

/** The widest state column; narrower when no row's state needs it. */
const STATE_WIDTH = 24;
const FIGURES = ['STORY', 'TRY', 'COST', 'TIME'] as const;
const FIGURE_WIDTH: Record<(typeof FIGURES)[number], number> = {
  STORY: 6,
  TRY: 4,
  COST: 7,
  TIME: 7,
};

const OUTCOME: Record<RunOutcome, string> = {
  complete: 'complete',
  'max-retries': 'a story failed',
  stopped: 'stopped',
  error: 'error',
  blocked: 'blocked (a question)',
  limited: 'usage limit',
  budget: 'budget spent',
  'time-limit': 'time limit',
  'not-approved': 'review rejected',
};

/** Several runs, one row per change; Enter shows one run's loop screen over it. Pure. */
export function dashboardFrame(
  dash: Dashboard,
  size: Size,
  now: number,
  options: UiRunOptions,
): Frame {
  const opened = dash.opened === null ? undefined : dash.runs[dash.opened];
  if (opened && dash.ended === null) return openedFrame(dash, opened, size, now);
  const ended = dash.ended !== null;
  const count = dash.changes.length;
  const at = options.parallel ?? 2;
  const header: Row[] = [
    [
      { text: 'ralphtool', tone: 'title' },
      { text: ' › ', tone: 'dim' },
      { text: ended ? `${count} runs › result` : `${count} runs`, tone: 'title' },
      {
        text: ended
          ? ` · exit ${dash.ended?.exitCode ?? 0}`
          : ` · each in its own worktree (<repo>.ralph/<change>) · ${Math.min(at, count)} at a time`,
        tone: 'dim',
      },
    ],
  ];
  const nameWidth = Math.min(24, Math.max(6, ...dash.changes.map((c) => columns(oneLine(c)))));
  const labels = dash.changes.map((c) => {
    const entry = dash.runs[c];
    return entry ? stateLabel(rowState(entry), entry.chosen) : '';
  });
  const stateWidth = Math.min(STATE_WIDTH, Math.max(7, ...labels.map((l) => columns(l))));
  const figures = FIGURES.map((f) => fit(f, FIGURE_WIDTH[f])).join(' ');
  header.push(
    row(
      `  ${fit('CHANGE', nameWidth)}  ${fit(ended ? 'OUTCOME' : 'STATE', stateWidth)}  ${ended ? 'WHAT WAS DONE' : `${figures}  AGENT`}`,
      'dim',
    ),
  );
  const rows = dash.changes.map((change, i): Row => {
    const entry = dash.runs[change];
    const selected = i === dash.list.selected;
    if (!entry) return row('');
    const state = rowState(entry);
    const lead = `${selected ? '› ' : '  '}${fit(oneLine(change), nameWidth)}  `;
    const stateText = fit(labels[i] ?? '', stateWidth);
    const tone: Tone = selected ? 'selected' : STATE_TONE[state.kind];
    if (ended) {
      return [
        { text: `${lead}${stateText}  `, tone },
        { text: doneText(entry, state), tone: 'dim' },
      ];
    }
    const rest = `${figuresOf(entry, now)}  `;
    const room = Math.max(0, size.columns - columns(lead) - stateWidth - 2 - columns(rest));
    return [
      { text: `${lead}${stateText}  ${rest}`, tone },
      { text: clip(lastLine(entry), room), tone: 'dim' },
    ];
  });
  const footer = footerRows(dash, size.columns, now);
  const height = bodyHeight(size, header.length, footer.length);
  const below = [
    ...accountRows(dash, size.columns, now),
    ...mergeRows(dash, size.columns),
    ...noticeRows(dash, size.columns),
  ];
  const body = [...rows, ...(below.length > 0 ? [blank, ...below] : [])];
  // The rows come first: the selected one stays in view, the report scrolls under them.
  const top = keepInView(0, dash.list.selected, body.length, height);
  return { header, body, top, height, footer };
}

const STATE_TONE: Record<RowState['kind'], Tone> = {
  queued: 'dim',
  running: 'accent',
  waiting: 'warn',
  awaiting: 'warn',
  done: 'good',
  failed: 'bad',
};

function stateLabel(state: RowState, chosen: CompletionChoice | null): string {
  switch (state.kind) {
    case 'queued':
      return 'queued';
    case 'running':
      return 'running';
    case 'waiting':
      return 'waiting for a limit';
    case 'awaiting':
      return chosen === null
        ? `${OUTCOME[state.outcome]}: choose c/k`
        : `${OUTCOME[state.outcome]}: ${chosen}…`;
    case 'done':
      return `done: ${OUTCOME[state.outcome]}`;
    case 'failed':
      return 'failed';
  }
}

/** Story k/n, attempt, cost and time of one row. */
function figuresOf(entry: DashboardRun, now: number): string {
  const view = entry.run.view;
  const total = view.summary.stories.length;
  const current = view.currentStoryId === null ? undefined : view.details[view.currentStoryId];
  const attempt = current?.attempts.at(-1)?.attempt;
  const cells = {
    STORY: view.started ? `${storiesDone(view)}/${total}` : '–',
    TRY: attempt === undefined ? '–' : String(attempt),
    COST: view.started ? formatCost(knownCost(view.summary)) : '–',
    TIME: view.started ? formatDuration(elapsedMs(view, now)) : '–',
  };
  return FIGURES.map((f) => fit(cells[f], FIGURE_WIDTH[f])).join(' ');
}

/** The last line its agent wrote (one line, sanitised), or the run's note when it has none. */
function lastLine(entry: DashboardRun): string {
  if (entry.error !== null) return entry.error;
  const view = entry.run.view;
  const id = view.currentStoryId;
  const line = id === null ? undefined : view.details[id]?.transcript.lines.at(-1);
  if (line) return oneLine(line.text);
  return entry.notice ?? '';
}

/** The result row's "what was done". */
function doneText(entry: DashboardRun, state: RowState): string {
  const view = entry.run.view;
  const finished = view.finished;
  if (state.kind === 'failed') return state.message;
  if (!finished) return entry.notice ?? 'did not finish: ralphtool resume / finish continue it';
  const stories = `${finished.storiesCompleted}/${finished.storiesTotal} stories`;
  switch (finished.choice) {
    case 'keep':
      return `${stories} · kept on ${oneLine(finished.branch)}`;
    case 'cleanup':
      return `${stories} · cleanup: the work is on ${oneLine(finished.originalBranch)}, uncommitted`;
    default:
      return finished.outcome === 'blocked'
        ? `${stories} · waits for an answer: ralphtool resume ${oneLine(view.change)} --answer …`
        : `${stories} · no choice made: ralphtool finish ${oneLine(view.change)} --keep|--cleanup`;
  }
}

/**
 * While the runs go on: each account's window as the usage governor knows it (as `status` says
 * it: utilisation, reset, a limit and the run that hit it), and the runs here that wait for a
 * limit, each until when.
 */
function accountRows(dash: Dashboard, width: number, now: number): Row[] {
  if (dash.ended !== null) return [];
  const out: Row[] = [];
  const add = (text: string, tone: Tone): void => {
    for (const line of wrap(text, width, '    ')) out.push(row(line, tone));
  };
  for (const account of dash.accounts) {
    add(accountWindowText(account, now), account.limit === null ? 'dim' : 'warn');
  }
  const waiting = dash.changes.flatMap((change) => {
    const wait = dash.runs[change]?.run.view.waiting ?? null;
    return wait === null ? [] : [`${oneLine(change)} until ${clockTime(wait.until, now)}`];
  });
  if (waiting.length > 0) add(`waiting for a limit: ${waiting.join(', ')}`, 'warn');
  return out;
}

/** The merge check: which finished branches collide, and an order that applies cleanly. */
function mergeRows(dash: Dashboard, width: number): Row[] {
  const merge = dash.merge;
  if (merge === null) return [];
  const out: Row[] = [];
  const add = (text: string, tone: Tone): void => {
    for (const line of wrap(text, width, '    ')) out.push(row(line, tone));
  };
  const against = oneLine(merge.against);
  if (merge.checked.length === 0) {
    add(`Merge check: no branch has work to bring onto ${against}.`, 'dim');
    return out;
  }
  if (merge.conflicts.length === 0) {
    add(`Merge check: the ${merge.checked.length} branches apply cleanly onto ${against}.`, 'good');
  }
  for (const c of merge.conflicts) {
    add(
      `conflict: ${oneLine(c.a)} × ${oneLine(c.b)} in ${c.files.map((f) => oneLine(f)).join(', ')}`,
      'bad',
    );
  }
  add(
    merge.order === null
      ? 'No order applies every branch cleanly: keep the branches and merge them by hand.'
      : `Clean order: ${merge.order.map((c) => oneLine(c)).join(' → ')}`,
    merge.order === null ? 'warn' : 'good',
  );
  return out;
}

function noticeRows(dash: Dashboard, width: number): Row[] {
  return dash.notices.slice(-3).flatMap((n) => wrap(n, width, '  ').map((l) => row(l, 'warn')));
}

function footerRows(dash: Dashboard, width: number, now: number): Row[] {
  const rows: Row[] = [];
  const add = (text: string, tone: Tone): void => {
    for (const line of wrap(text, width, '  ').slice(0, 2)) rows.push(row(line, tone));
  };
  if (dash.ended !== null) {
    add('↑/↓ choose · Esc back to the changes · q quit', 'dim');
    return rows;
  }
  if (dash.stopRequested) add('stopping every run… each is reverted to its checkpoint', 'warn');
  if (dash.hint && pressesLeft(dash.quit, now) < 3) add(dash.hint, 'dim');
  const asking = dash.changes.some((c) => {
    const entry = dash.runs[c];
    return entry !== undefined && entry.chosen === null && rowState(entry).kind === 'awaiting';
  });
  const choices = asking ? ' · c/k cleanup/keep this one · C/K all' : '';
  add(`↑/↓ choose · Enter open its loop${choices} · q stop all`, 'dim');
  return rows;
}

/** One run's loop screen, as a single run shows it, with the dashboard's keys and stop notes. */
function openedFrame(dash: Dashboard, entry: DashboardRun, size: Size, now: number): Frame {
  const ours = footerRows(dash, size.columns, now).slice(0, -1);
  // Laid out for the rows left once the dashboard's notes are added under the loop's own.
  const frame = loopFrame(entry.run, { ...size, rows: size.rows - ours.length }, now, null);
  const keys = row('←/→ story · Tab info/agent · ↑/↓ scroll · Esc dashboard · q stop all', 'dim');
  // The loop's own notes (errors, a limit wait) stay; its key row gives way to the dashboard's.
  return { ...frame, footer: [...frame.footer.slice(0, -1), ...ours, keys] };
}
