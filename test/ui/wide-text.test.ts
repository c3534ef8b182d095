import { afterEach, describe, expect, it } from 'vitest';
import { columns } from '../../src/format/text.js';
import { FakeController } from './support/fake-controller.js';
import {
  addAuth,
  at,
  change,
  story,
  storyStarted,
  started,
  summaryOf,
} from './support/fixtures.js';
import { KEY, renderUi, type Ui } from './support/harness.js';

// 61 CJK characters: 122 columns, so on an 80-column terminal it needs two rows. Counted in
// characters it seemed to fit, and Ink then cut it off at the edge.
const JAPANESE =
  '日本語のテキストは一文字が二列を使うので八十列の端末では四十文字ごとに折り返す必要があり最後の文字まで全部見えることが大事';
const FAMILY = '👨\u200d👩\u200d👧';
const THUMB = '👍🏽';

let ui: Ui | null = null;
afterEach(() => ui?.unmount());

async function agentTab(text: string, stories = addAuth()): Promise<Ui> {
  const controller = new FakeController([stories], (c) => summaryOf(c));
  const opened = await renderUi(controller, { columns: 80, rows: 30 });
  ui = opened;
  await opened.press(KEY.enter);
  await opened.until('Story 1: ');
  await opened.press('r');
  await opened.until('starting the run');
  controller.lastRun.emit(
    at(0, started()),
    at(1, storyStarted('2', 1)),
    at(2, { type: 'agent.message', storyId: '2', attempt: 1, text }),
  );
  await opened.until('attempt 1 of 3');
  return opened;
}

/** The frame's rows joined back together, as a reader would follow them. */
const joinedRows = (frame: string): string =>
  frame
    .split('\n')
    .map((l) => l.trim())
    .join('');

describe('wide characters on the Loop screen', () => {
  it('wraps CJK agent text by columns so all of it is shown', async () => {
    expect(JAPANESE).toHaveLength(61);
    const shown = await agentTab(JAPANESE);
    await shown.press(KEY.tab);
    const frame = await shown.until('[ Agent ]');
    expect(joinedRows(frame)).toContain(JAPANESE);
    for (const line of frame.split('\n')) expect(columns(line)).toBeLessThanOrEqual(80);
  });

  it('wraps emoji sequences whole', async () => {
    // Counted in code points, the first row would end between a thumb and its skin tone.
    const text = `a${THUMB.repeat(50)}${FAMILY.repeat(10)}end`;
    const shown = await agentTab(text);
    await shown.press(KEY.tab);
    const frame = await shown.until('[ Agent ]');
    expect(joinedRows(frame)).toContain(text);
    for (const line of frame.split('\n')) expect(columns(line)).toBeLessThanOrEqual(80);
  });

  it('wraps a CJK task on the Info tab', async () => {
    const title = 'ログイン画面';
    const stories = change('add-auth', [
      story('1', 'Setup', [true, true]),
      story('2', title, [false]),
      story('3', 'Sessions', [false]),
    ]);
    const task = stories.stories[1]?.tasks[0];
    if (!task) throw new Error('fixture has no task');
    task.description = JAPANESE;
    const shown = await agentTab('hello', stories);
    const frame = await shown.until(`[ ] 2.1 ${JAPANESE.slice(0, 10)}`);
    expect(joinedRows(frame)).toContain(JAPANESE.slice(10));
  });
});
