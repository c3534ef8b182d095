import { afterEach, describe, expect, it } from 'vitest';
import { FakeController } from './support/fake-controller.js';
import { addAuth, summaryOf } from './support/fixtures.js';
import { KEY, renderUi, type Ui } from './support/harness.js';

// The answer to a blocked run's question, typed in the UI (ui/state/answer-field.ts): keys go to
// the field as text while it is open, Enter resumes the run with the answer.

let ui: Ui | undefined;
afterEach(() => {
  ui?.unmount();
  ui = undefined;
});

describe('answering a blocked run in the UI', () => {
  it('r opens the field; letters that are keys elsewhere (q, c, k, r) are text in it; Enter resumes with the answer', async () => {
    const controller = new FakeController([addAuth()], (c) => summaryOf(c));
    controller.marks = { 'add-auth': 'blocked' };
    ui = await renderUi(controller, { columns: 160 });
    await ui.until('add-auth [blocked]');
    await ui.press('r');
    await ui.until('answer for add-auth: ▏');
    await ui.press('quick: keep it, or rework', KEY.enter);
    await ui.until(() => controller.runs.length === 1);
    expect(controller.runs[0]?.mode).toBe('resume');
    expect(controller.runs[0]?.answer).toBe('quick: keep it, or rework');
    expect(ui.exitCode()).toBeNull();
  });

  it('Esc puts the field away and the keys mean what they did', async () => {
    const controller = new FakeController([addAuth()], (c) => summaryOf(c));
    controller.marks = { 'add-auth': 'blocked' };
    ui = await renderUi(controller, { columns: 160 });
    await ui.until('add-auth [blocked]');
    await ui.press('r', 'abc', KEY.escape);
    await ui.until('blocked: r answer its question here');
    expect(controller.runs).toEqual([]);
  });
});
