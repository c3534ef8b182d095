import type { RowMap } from '../state/line-anchor.js';
import type { LoopView } from '../state/loop-view.js';
import type { TranscriptLine } from '../state/transcript.js';
import { columns, oneLine, wrap } from '../../format/text.js';
import { row, type Row, type Tone } from './frame.js';

const LINE_TONE: Record<TranscriptLine['kind'], Tone> = {
  attempt: 'accent',
  text: 'plain',
  tool: 'dim',
  result: 'accent',
  failure: 'bad',
  note: 'dim',
};

/** The Agent tab's rows for one story, wrapped to the width, and where each line starts. */
export function agentRows(
  view: LoopView,
  storyId: string,
  width: number,
  dir: string | null,
): { rows: Row[]; rowMap: RowMap } {
  const transcript = view.details[storyId]?.transcript;
  if (!transcript || transcript.lines.length === 0) {
    return {
      rows: [row('no agent output for this story yet', 'dim')],
      rowMap: { firstLine: 0, starts: [], total: 1 },
    };
  }
  const rows: Row[] = [];
  if (transcript.dropped > 0) {
    const where = dir ? `in ${oneLine(dir)}` : 'on disk';
    const marker = `… ${transcript.dropped} earlier lines not shown; the full transcript is ${where}`;
    for (const line of wrap(marker, width)) rows.push(row(line, 'warn'));
  }
  const starts: number[] = [];
  for (const line of transcript.lines) {
    starts.push(rows.length);
    const tone = LINE_TONE[line.kind];
    for (const text of lineRows(line, width)) rows.push(row(text, tone));
  }
  return { rows, rowMap: { firstLine: transcript.dropped, starts, total: rows.length } };
}

/**
 * Each line's rows, remembered per line and width: the whole transcript is laid out on every
 * frame, and its lines never change once added, so only new lines (or a new width) cost work.
 */
const laidOut = new WeakMap<TranscriptLine, { width: number; rows: string[] }>();

function lineRows(line: TranscriptLine, width: number): string[] {
  const known = laidOut.get(line);
  if (known?.width === width) return known.rows;
  const rows = layOut(line, width);
  laidOut.set(line, { width, rows });
  return rows;
}

function layOut(line: TranscriptLine, width: number): string[] {
  switch (line.kind) {
    case 'attempt': {
      const label = `── ${line.text} `;
      return [label + '─'.repeat(Math.max(0, width - columns(label)))];
    }
    case 'tool':
      return wrap(`  · ${line.text}`, width, '      ');
    case 'result':
      return wrap(`  = ${line.text}`, width, '    ');
    case 'failure':
      return wrap(`  ✗ ${line.text}`, width, '    ');
    case 'note':
      return wrap(`  ${line.text}`, width, '    ');
    case 'text':
      return wrap(line.text, width);
  }
}
