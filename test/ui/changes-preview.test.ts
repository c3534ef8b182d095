import { afterEach, describe, expect, it } from 'vitest';
import { runOptionsRows } from '../../src/ui/view/changes-frame.js';
import { FakeController } from './support/fake-controller.js';
import { addAuth, change, story, summaryOf, T0 } from './support/fixtures.js';
import { KEY, renderUi, type Ui } from './support/harness.js';

let ui: Ui | null = null;
afterEach(() => ui?.unmount());

function manyChanges(n: number): FakeController {
  const changes = Array.from({ length: n }, (_, i) =>
    change(`change-${String(i).padStart(2, '0')}`, [story('1', 'Only', [i % 2 === 0])]),
  );
  return new FakeController(changes, (c) => summaryOf(c));
}

describe('Changes screen', () => {
  it('says how to create a change when there is none', async () => {
    ui = await renderUi(new FakeController([], (c) => summaryOf(c)));
    const frame = await ui.until('No changes yet');
    expect(frame).toContain('openspec new change <name>');
    expect(frame).toContain('q quit');
    await ui.press('q');
    expect(ui.exitCode()).toBe(0);
  });

  it('shows why the changes could not be listed', async () => {
    const controller = new FakeController([], (c) => summaryOf(c));
    controller.listError = 'not inside a git repository';
    ui = await renderUi(controller);
    expect(await ui.until('could not list')).toContain('not inside a git repository');
  });

  it('wraps a long error instead of cutting off what to do', async () => {
    const controller = new FakeController([], (c) => summaryOf(c));
    controller.listError =
      'no openspec/ folder in the repository /tmp/some/rather/long/path/to/a/project: run `openspec init` there first';
    ui = await renderUi(controller, { columns: 60, rows: 20 });
    const frame = await ui.until('could not list');
    expect(frame.replace(/\n\s*/g, ' ')).toContain('run `openspec init` there first');
    for (const line of frame.split('\n')) expect([...line].length).toBeLessThanOrEqual(60);
  });

  it('lists changes with progress and last modification', async () => {
    ui = await renderUi(new FakeController([addAuth()], (c) => summaryOf(c)), {
      now: T0 + 5 * 60_000,
    });
    const frame = await ui.until('add-auth');
    expect(frame).toMatch(/› add-auth\s+█+░+ 1\/3\s+2\/5\s+5m ago/);
  });

  it('scrolls a long list with wrapping ↑/↓', async () => {
    ui = await renderUi(manyChanges(40), { columns: 60, rows: 20 });
    await ui.until('› change-00');
    for (let i = 0; i < 20; i += 1) await ui.press(KEY.down);
    const down = await ui.until('› change-20');
    expect(down).not.toContain('change-00');
    await ui.press(KEY.up, KEY.up);
    await ui.until('› change-18');
    for (let i = 0; i < 18; i += 1) await ui.press(KEY.up);
    await ui.until('› change-00');
    await ui.press(KEY.up);
    const wrapped = await ui.until('› change-39');
    expect(wrapped).not.toContain('change-00');
    await ui.press(KEY.down);
    await ui.until('› change-00');
  });
});

describe('Changes screen: more than fit', () => {
  it('says in the footer how many changes lie below and above the window', async () => {
    // 20 rows: 2 header rows and the footer leave 16 for the list of 40.
    ui = await renderUi(manyChanges(40), { columns: 60, rows: 20 });
    const first = await ui.until('› change-00');
    expect(first).toContain('↓ 24 more below · ↑/↓ choose · Enter open · q quit');
    expect(first).not.toContain('above');
    for (let i = 0; i < 16; i += 1) await ui.press(KEY.down);
    const middle = await ui.until('› change-16');
    expect(middle).toContain('↑ 1 above · ↓ 23 below · ↑/↓ choose');
    await ui.press(KEY.up);
    await ui.until('› change-15');
    for (let i = 0; i < 16; i += 1) await ui.press(KEY.up);
    const last = await ui.until('› change-39');
    expect(last).toContain('↑ 24 more above · ↑/↓ choose');
    expect(last).not.toContain('below');
  });

  it('shows no marker when every change fits', async () => {
    ui = await renderUi(manyChanges(3), { columns: 60, rows: 20 });
    const frame = await ui.until('› change-00');
    expect(frame).not.toMatch(/above|below/);
    expect(frame).toContain('↑/↓ choose · Enter open · q quit');
  });
});

describe('Changes screen: a note from the caller (the demo)', () => {
  it('shows the note above the list, wrapped on a narrow terminal, and the list still fits', async () => {
    const base = manyChanges(40);
    const note =
      'Demo: Enter opens add-text-helpers, then r runs it (a scripted agent, no AI); q quits.';
    const controller = Object.assign(Object.create(base) as FakeController, {
      runOptions: { ...base.runOptions, note },
    });
    ui = await renderUi(controller, { columns: 60, rows: 20 });
    const frame = await ui.until('› change-00');
    expect(frame.replace(/\n\s*/g, ' ')).toContain(note);
    for (const line of frame.split('\n')) expect([...line].length).toBeLessThanOrEqual(60);
    // Two note rows: 14 list rows are left, so 26 of the 40 changes are below.
    expect(frame).toContain('↓ 26 more below');
    expect(frame.split('\n').length).toBeLessThanOrEqual(20);
  });
});

describe('Preview screen', () => {
  function longChange() {
    return change(
      'big-change',
      Array.from({ length: 15 }, (_, i) =>
        story(String(i + 1), `Story title ${i + 1}`, [true, false, false]),
      ),
      6,
    );
  }

  it('shows the stories with checked tasks, the counts and the run options', async () => {
    ui = await renderUi(new FakeController([addAuth()], (c) => summaryOf(c)));
    await ui.press(KEY.enter);
    const frame = await ui.until('Story 2: Login form');
    expect(frame).toContain('add-auth  stories 1/3 · tasks 2/5 · 2 scenarios');
    expect(frame).toContain('[ Tasks ]');
    expect(frame).toContain('✓ Story 1: Setup  (2/2)');
    expect(frame).toContain('[x] 1.1 Task 1.1 of Setup');
    expect(frame).toContain('[ ] 2.2 Task 2.2 of Login form');
    expect(frame).toContain(
      'agent claude · max retries 2 · agent timeout 1h00m · idle timeout 15m00s',
    );
    expect(frame).toContain('Verify: npm test');
  });

  it('says no check is run when --verify was not given (the prompt only suggests some)', () => {
    const shown = (suggestedVerify?: string[]): string =>
      runOptionsRows({
        agent: 'claude',
        maxRetries: 3,
        agentTimeoutMs: 0,
        idleTimeoutMs: 0,
        verify: [],
        ...(suggestedVerify ? { suggestedVerify } : {}),
      })
        .map((r) => r.map((cell) => cell.text).join(''))
        .join('\n');
    // The hint names the project's own test command, never npm's for a project without npm.
    expect(shown(['cargo test'])).toContain(
      'Verify: none given (add --verify "cargo test" to check each story)',
    );
    expect(shown(['pnpm test', 'make test'])).toContain('add --verify "pnpm test"');
    for (const none of [undefined, []]) {
      const text = shown(none);
      expect(text).toContain('add --verify "<your test command>" to check each story');
      expect(text).not.toContain('npm test');
    }
    expect(shown([])).toContain('agent timeout none · idle timeout none');
  });

  it('wraps the run options on a narrow terminal instead of cutting off the limits', () => {
    const rows = runOptionsRows(
      {
        agent: 'command (my-agent --fast --no-color)',
        maxRetries: 3,
        agentTimeoutMs: 3_600_000,
        idleTimeoutMs: 900_000,
        verify: ['npm test'],
      },
      60,
    );
    const lines = rows.map((r) => r.map((cell) => cell.text).join(''));
    for (const line of lines) expect([...line].length).toBeLessThanOrEqual(60);
    expect(lines.join(' ').replace(/\s+/g, ' ')).toContain('idle timeout 15m00s');
  });

  it('says when a change has no tasks to run', async () => {
    ui = await renderUi(new FakeController([change('no-tasks-yet', [])], (c) => summaryOf(c)));
    await ui.press(KEY.enter);
    expect(await ui.until('No tasks')).toContain(
      'No tasks: tasks.md is missing or has no "- [ ] …" lines under a heading.',
    );
  });

  it('switches to the scenarios with Tab and back with Shift-Tab', async () => {
    ui = await renderUi(new FakeController([addAuth()], (c) => summaryOf(c)));
    await ui.press(KEY.enter);
    await ui.until('Story 1');
    await ui.press(KEY.tab);
    const frame = await ui.until('[ Scenarios ]');
    expect(frame).toContain('auth');
    expect(frame).toContain('ADDED Requirement: Login');
    expect(frame).toContain('Scenario: Scenario number 2');
    expect(frame).toContain('GIVEN a registered user');
    expect(frame).toContain('WHEN they submit the form');
    expect(frame).toContain('AND the password matches');
    expect(frame).toContain('THEN they see page 1');
    await ui.press(KEY.shiftTab);
    await ui.until('[ Tasks ]');
  });

  it('scrolls with clamping: no dead presses past the end', async () => {
    ui = await renderUi(new FakeController([longChange()], (c) => summaryOf(c)), {
      columns: 80,
      rows: 20,
    });
    await ui.press(KEY.enter);
    await ui.until('Story 1: Story title 1');
    await ui.press(KEY.pageDown);
    const paged = await ui.until((f) => !f.includes('Story 1: Story title 1'));
    // A page is the viewport less one row of context.
    // (At 80 columns the run options take two rows, leaving a body of 13.)
    expect(bodyLines(paged)[0]).toContain('Story 4: Story title 4');
    for (let i = 0; i < 30; i += 1) await ui.press(KEY.pageDown);
    const bottom = await ui.until('[ ] 15.3 Task 15.3');
    const lastBody = bodyLines(bottom).at(-1);
    expect(lastBody).toContain('15.3');
    // One press up moves at once, although many presses went past the end.
    await ui.press(KEY.up);
    const up = await ui.until((f) => !bodyLines(f).at(-1)?.includes('15.3'));
    // The window's last row now says what lies below it (15.2 and 15.3).
    expect(bodyLines(up).at(-1)).toContain('↓ 2 more lines (↓ / PgDn)');
    expect(bodyLines(up).at(-2)).toContain('15.1');
    for (let i = 0; i < 10; i += 1) await ui.press(KEY.pageUp);
    await ui.until('Story 1: Story title 1');
    await ui.press(KEY.down);
    await ui.until((f) => !f.includes('Story 1: Story title 1'));
  });

  it('goes back with Esc and reports a change that cannot be read', async () => {
    const controller = new FakeController([addAuth()], (c) => summaryOf(c));
    ui = await renderUi(controller);
    await ui.press(KEY.enter);
    await ui.until('Story 1');
    await ui.press(KEY.escape);
    await ui.until('› add-auth');
    controller.changes = [];
    // The list on screen still names add-auth; reading it now fails.
    await ui.press(KEY.enter);
    expect(await ui.until('could not read')).toContain('no change named add-auth');
  });
});

/** The body rows of a preview frame: between the tab bar and the run options. */
function bodyLines(frame: string): string[] {
  const lines = frame.split('\n');
  const start = lines.findIndex((l) => l.includes('Tasks'));
  const end = lines.findIndex((l) => l.startsWith('Run options'));
  return lines.slice(start + 1, end).filter((l) => l.trim() !== '');
}
