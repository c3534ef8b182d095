import { clockTime } from '../../format/clock.js';
import { formatCost, formatDuration, plural, progressBar } from '../../format/units.js';
import { knownCost, type StorySummary } from '../../core/run-summary.js';
import type { WatchedRun } from '../state/app-state.js';
import { elapsedMs, storiesDone, storyStatus, type StoryStatus } from '../state/loop-status.js';
import type { AttemptView, LoopView } from '../state/loop-view.js';
import { pressesLeft } from '../state/quit-presses.js';
import { topFromAnchor } from '../state/line-anchor.js';
import { clampTop, maxTop } from '../state/scroll.js';
import { agentRows } from './agent-rows.js';
import { columns, oneLine, wrap } from '../../format/text.js';
import {
  bodyHeight,
  row,
  type Frame,
  type Row,
  type Segment,
  type Size,
  type Tone,
} from './frame.js';
import { tabsRow } from './preview-frame.js';

const SYMBOL: Record<StoryStatus, string> = { done: '✓', current: '▸', failed: '✗', pending: '·' };
const TONE: Record<StoryStatus, Tone> = {
  done: 'good',
  current: 'accent',
  failed: 'bad',
  pending: 'dim',
};

/** Screen 3: the run as it happens. */
export function loopFrame(
  run: WatchedRun,
  size: Size,
  now: number,
  transcriptsDir: string | null,
): Frame {
  const view = run.view;
  const total = view.summary.stories.length;
  const done = storiesDone(view);
  const header: Row[] = [
    [
      { text: 'ralphtool', tone: 'title' },
      { text: ' › ', tone: 'dim' },
      { text: oneLine(run.change), tone: 'title' },
      {
        text: `  ${progressBar(done, total, 10)} ${done}/${total} stories · ${formatDuration(elapsedMs(view, now))} · ${formatCost(knownCost(view.summary))}`,
      },
    ],
  ];
  const selected = view.summary.stories.find((s) => s.id === run.selectedStoryId) ?? null;
  if (view.started) {
    header.push(storyStrip(run, size.columns));
    header.push(selected ? storyLine(view, selected.id, selected.title) : row(''));
    const scrolled =
      run.tab === 'agent' && !run.agentScroll.follow
        ? '  scrolled up: End or ↓ to the bottom follows again'
        : '';
    header.push(tabsRow(['Info', 'Agent'], run.tab === 'info' ? 0 : 1, scrolled));
  }
  const footer = footerRows(run, size.columns, now);
  const height = bodyHeight(size, header.length, footer.length);
  if (!view.started || !selected) {
    const body = view.started
      ? [row('this change has no stories', 'warn')]
      : [row(run.ended ? 'the run did not start' : 'starting the run…', 'dim')];
    return { header, body, top: 0, height, footer };
  }
  if (run.tab === 'info') {
    const body = infoRows(run, selected.id, size.columns, now);
    return {
      header,
      body,
      top: clampTop(run.infoScroll, { total: body.length, viewport: height }),
      height,
      footer,
      moreBelowHint: true,
    };
  }
  const { rows: body, rowMap } = agentRows(view, selected.id, size.columns, transcriptsDir);
  const pane = { total: body.length, viewport: height };
  const top = run.agentScroll.follow
    ? maxTop(pane)
    : clampTop(topFromAnchor(run.agentScroll.anchor, rowMap), pane);
  return { header, body, top, height, footer, rowMap };
}

function storyStrip(run: WatchedRun, width: number): Row {
  const view = run.view;
  const maxAttempts = (view.started?.maxRetries ?? 0) + 1;
  const chips = view.summary.stories.map((s) => {
    const status = storyStatus(view, s.id);
    const attempt =
      status === 'current' || status === 'failed' ? ` ${s.attempts}/${maxAttempts}` : '';
    const label = `${SYMBOL[status]}${oneLine(s.id)}${attempt}`;
    const isSelected = s.id === run.selectedStoryId;
    return {
      text: isSelected ? `[${label}]` : ` ${label} `,
      tone: isSelected ? 'selected' : TONE[status],
    } satisfies Segment;
  });
  const at = Math.max(
    0,
    view.summary.stories.findIndex((s) => s.id === run.selectedStoryId),
  );
  // Show a window of chips around the selected one when they do not all fit.
  let from = at;
  let to = at + 1;
  const length = (a: number, b: number): number =>
    chips.slice(a, b).reduce((n, c) => n + columns(c.text), 0) + 4;
  while (true) {
    const grewRight = to < chips.length && length(from, to + 1) <= width;
    if (grewRight) to += 1;
    const grewLeft = from > 0 && length(from - 1, to) <= width;
    if (grewLeft) from -= 1;
    if (!grewRight && !grewLeft) break;
  }
  return [
    { text: from > 0 ? '‹ ' : '  ', tone: 'dim' },
    ...chips.slice(from, to),
    { text: to < chips.length ? ' ›' : '', tone: 'dim' },
  ];
}

function storyLine(view: LoopView, id: string, title: string): Row {
  const status = storyStatus(view, id);
  const attempts = view.details[id]?.attempts ?? [];
  const last = attempts.at(-1);
  const max = (view.started?.maxRetries ?? 0) + 1;
  const word: Record<StoryStatus, string> = {
    done: 'done',
    current: 'running',
    failed: view.exhausted?.storyId === id ? 'used all its attempts' : 'failed, will retry',
    pending: last?.status === 'stopped' ? 'stopped' : 'pending',
  };
  const attempt = last ? ` · attempt ${last.attempt} of ${max}` : '';
  // A limited attempt was reverted, not counted: the story waits to run it again.
  const waiting =
    view.waiting?.storyId === id ? `waiting for the ${view.waiting.kind} limit` : null;
  // Status first: on a narrow terminal the title is what gets clipped.
  return [
    { text: `Story ${oneLine(id)}`, tone: 'title' },
    { text: ` · ${waiting ?? word[status]}${attempt} · `, tone: waiting ? 'warn' : TONE[status] },
    { text: title, tone: 'title' },
  ];
}

function infoRows(run: WatchedRun, storyId: string, width: number, now: number): Row[] {
  const view = run.view;
  const rows: Row[] = [];
  const story = run.tasks?.stories.find((s) => s.id === storyId);
  const summary = view.summary.stories.find((s) => s.id === storyId);
  if (summary) {
    rows.push(
      row(
        `${plural(summary.attempts, 'attempt')} · ${formatCost(knownCost(summary))} · ${formatDuration(storyTimeMs(summary, now))}`,
        'dim',
      ),
    );
  }
  if (story) {
    const done = story.tasks.filter((t) => t.done).length;
    rows.push(row(`Tasks ${done}/${story.tasks.length}:`, 'title'));
    for (const task of story.tasks) {
      const indent = '  ' + '  '.repeat(task.depth);
      const text = `${indent}[${task.done ? 'x' : ' '}] ${oneLine(task.id)} ${oneLine(task.description)}`;
      for (const line of wrap(text, width, `${indent}    `))
        rows.push(row(line, task.done ? 'good' : 'plain'));
    }
  } else {
    rows.push(row('Tasks: not read yet', 'dim'));
  }
  const attempts = view.details[storyId]?.attempts ?? [];
  rows.push(row(attempts.length === 0 ? 'Attempts: none yet' : 'Attempts:', 'title'));
  for (const attempt of attempts) {
    const [text, tone] = attemptText(attempt);
    for (const line of wrap(text, width, '       ')) rows.push(row(line, tone));
  }
  if (view.exhausted?.storyId === storyId) {
    for (const line of wrap(
      `Used all ${view.exhausted.attempts} attempts. Last reason: ${view.exhausted.reason}`,
      width,
      '  ',
    )) {
      rows.push(row(line, 'bad'));
    }
  }
  return rows;
}

function attemptText(a: AttemptView): [string, Tone] {
  const figures = [
    a.turns === null ? null : plural(a.turns, 'turn'),
    a.costUsd > 0 ? formatCost(a.costUsd) : null,
    a.durationMs === null ? null : formatDuration(a.durationMs),
  ].filter((f) => f !== null);
  const tail = figures.length > 0 ? ` · ${figures.join(' · ')}` : '';
  switch (a.status) {
    case 'running':
      return [`  #${a.attempt} running…${tail}`, 'accent'];
    case 'accepted':
      return [`  #${a.attempt} ✓ accepted${tail}`, 'good'];
    case 'stopped':
      return [`  #${a.attempt} stopped, work reverted${tail}`, 'warn'];
    case 'failed':
      return [`  #${a.attempt} ✗ ${a.kind ?? 'failed'}: ${a.reason ?? ''}${tail}`, 'bad'];
  }
}

/** Notices (stopping, hints, errors, end of run) and the keys; errors are never hidden. */
function footerRows(run: WatchedRun, width: number, now: number): Row[] {
  const rows: Row[] = [];
  const add = (text: string, tone: Tone, maxRows = Infinity): void => {
    const lines = wrap(text, width, '  ');
    const shown = lines.slice(0, maxRows);
    if (lines.length > shown.length) shown[shown.length - 1] = `${shown.at(-1) ?? ''}…`;
    for (const line of shown) rows.push(row(line, tone));
  };
  const view = run.view;
  if (run.stopRequested && !run.ended && !view.awaiting) {
    add('stopping… the agent is being stopped and its partial work reverted', 'warn');
  }
  if (run.hint && !run.ended && pressesLeft(run.quit, now) < 3) add(run.hint, 'dim');
  if (view.waiting && !run.ended && !run.stopRequested) add(waitingText(view.waiting, now), 'warn');
  const errors = view.errors;
  const shown = errors.slice(-2);
  const earlier = errors.length - shown.length;
  shown.forEach((e, i) => {
    const prefix = i === 0 && earlier > 0 ? `(${earlier} earlier) ` : '';
    // The newest gets room for its advice (it usually ends with what to do).
    const rows = i === shown.length - 1 ? 4 : 2;
    add(`${prefix}${e.fatal ? 'error' : 'warning'}: ${e.message}`, 'bad', rows);
  });
  if (run.ended) {
    add(`The run ended (exit ${run.ended.exitCode}). Esc back to changes · q quit`, 'warn');
  } else {
    add('←/→ story · Tab info/agent · ↑/↓ PgUp/PgDn scroll · q stop', 'dim');
  }
  return rows;
}

/** The live countdown of a usage-limit wait: `⏸ usage limit (exit 75): story 1 again at 15:02, in 4m12s`. */
function waitingText(waiting: NonNullable<LoopView['waiting']>, now: number): string {
  const left = formatDuration(Math.max(0, waiting.until - now));
  return `⏸ ${waiting.kind} limit (${waiting.source}): story ${oneLine(waiting.storyId)} again at ${clockTime(waiting.until, now)}, in ${left} (the attempt does not count; q stops)`;
}

/** A story's time so far: its finished attempts plus the running one. */
function storyTimeMs(story: StorySummary, now: number): number {
  const running = story.runningSince === null ? 0 : Math.max(0, now - story.runningSince);
  return story.durationMs + running;
}
