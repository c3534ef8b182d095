import { formatDuration, progressBar, relativeTime } from '../../format/units.js';
import type { UiRunOptions } from '../controller.js';
import { verifyHint } from '../../core/verify-inference.js';
import { keepInView } from '../state/list.js';
import type { UiState } from '../state/app-state.js';
import { MARK_LABELS, recordedRunHint } from '../state/recorded-runs.js';
import { fit, oneLine, wrap } from '../../format/text.js';
import { blank, bodyHeight, row, type Frame, type Row, type Size } from './frame.js';

const FIXED_COLUMNS = 2 + 14 + 2 + 9 + 2 + 9 + 2;

/** Screen 1: the repository's changes with their progress. */
export function changesFrame(state: UiState, size: Size, now: number, note?: string): Frame {
  const header: Row[] = [
    [
      { text: 'ralphtool', tone: 'title' },
      { text: ' · changes in this repository', tone: 'dim' },
    ],
    // Wrapped, two rows at most: what to press must stay in view on a narrow terminal.
    ...(note
      ? wrap(oneLine(note), size.columns, '  ')
          .slice(0, 2)
          .map((l) => row(l, 'accent'))
      : []),
  ];
  const keys = keyHint(state);
  const notice = state.recorded.notice
    ? [row(state.recorded.notice.text, state.recorded.notice.tone)]
    : [];
  const footer: Row[] = [...notice, row(keys, 'dim')];
  const changes = state.changes;
  if (changes.status !== 'ready' || changes.value.length === 0) {
    const body =
      changes.status === 'loading'
        ? [row('loading changes…', 'dim')]
        : changes.status === 'error'
          ? // Wrapped, not clipped: the end of the message says what to do.
            wrap(`could not list the changes: ${oneLine(changes.message)}`, size.columns, '  ').map(
              (line) => row(line, 'bad'),
            )
          : emptyState();
    return { header, body, top: 0, height: bodyHeight(size, header.length, 1), footer };
  }
  // A column of marks (Space) only while some change is marked: the list is unchanged otherwise.
  const marking = state.marked.length > 0;
  const nameWidth = Math.max(8, size.columns - FIXED_COLUMNS - (marking ? 2 : 0));
  header.push(
    row(
      `  ${marking ? '  ' : ''}${fit('NAME', nameWidth)}  ${fit('STORIES', 14)}  ${fit('TASKS', 9)}  ${fit('MODIFIED', 9)}`,
      'dim',
    ),
  );
  const height = bodyHeight(size, header.length, footer.length);
  const list = state.changesList;
  const body = changes.value.map((c, i): Row => {
    const selected = i === list.selected;
    const mark = state.recorded.marks[c.name];
    const name = mark === undefined ? oneLine(c.name) : `${oneLine(c.name)} [${MARK_LABELS[mark]}]`;
    const markCell = marking ? (state.marked.includes(c.name) ? '◉ ' : '○ ') : '';
    const text = `${selected ? '› ' : '  '}${markCell}${fit(name, nameWidth)}  ${fit(
      `${progressBar(c.stories.done, c.stories.total, 8)} ${c.stories.done}/${c.stories.total}`,
      14,
    )}  ${fit(`${c.tasks.done}/${c.tasks.total}`, 9)}  ${fit(relativeTime(c.lastModified, new Date(now)), 9)}`;
    return row(text, selected ? 'selected' : 'plain');
  });
  const top = keepInView(list.top, list.selected, body.length, height);
  return {
    header,
    body,
    top,
    height,
    footer: [...notice, moreRow(top, height, body.length, keys)],
  };
}

/**
 * The key hint, and how many changes lie above and below the window: the selected row may be
 * the last one shown, so the count goes in the footer rather than over a row of the list.
 */
function moreRow(top: number, height: number, count: number, keys: string): Row {
  const above = top;
  const below = Math.max(0, count - (top + height));
  // First, so that a narrow terminal cuts off the key hint rather than the count.
  const more =
    above > 0 && below > 0
      ? `↑ ${above} above · ↓ ${below} below · `
      : above > 0
        ? `↑ ${above} more above · `
        : below > 0
          ? `↓ ${below} more below · `
          : '';
  return row(`${more}${keys}`, 'dim');
}

/** The keys of the list, with those of a recorded run when the selected change has one. */
function keyHint(state: UiState): string {
  const runHint = recordedRunHint(state);
  const n = state.marked.length;
  // Several marked: s starts them together, each in a worktree of its own beside this one.
  const marks =
    n > 0
      ? `Space mark · s start ${n} marked, each in its own worktree`
      : 'Space mark · a mark all with stories left';
  // Last: a narrow terminal cuts them off before the keys of a single change.
  return `↑/↓ choose · Enter open${runHint === null ? '' : ` · ${runHint}`} · q quit · ${marks}`;
}

function emptyState(): Row[] {
  return [
    row('No changes yet in openspec/changes/.', 'warn'),
    blank,
    row('Create one with:'),
    row('  openspec new change <name>', 'accent'),
    row('then list its work as checkboxes in openspec/changes/<name>/tasks.md', 'dim'),
    row('and start ralphtool again.', 'dim'),
  ];
}

/**
 * The options a run started from the UI will use, shown before running: wrapped to `width`
 * (a narrow terminal must not cut off the limits), two rows at the most.
 */
export function runOptionsRows(options: UiRunOptions, width = Infinity): Row[] {
  const limit = (ms: number): string => (ms === 0 ? 'none' : formatDuration(ms));
  const model = options.model ? ` · model ${oneLine(options.model)}` : '';
  const run = `Run options: agent ${oneLine(options.agent)}${model} · max retries ${options.maxRetries} · agent timeout ${limit(options.agentTimeoutMs)} · idle timeout ${limit(options.idleTimeoutMs)}`;
  // ralphtool runs only the user's --verify commands; without them it runs none (the prompt
  // merely suggests the project's own tests to the agent).
  const verify = `Verify: ${options.verify.length === 0 ? `none given (${oneLine(verifyHint(options.suggestedVerify ?? []))})` : options.verify.map((v) => oneLine(v)).join(' ; ')}`;
  return [run, verify].flatMap((text) =>
    wrap(text, width, '  ')
      .slice(0, 2)
      .map((line) => row(line, 'dim')),
  );
}
