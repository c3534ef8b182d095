import { describe, expect, it } from 'vitest';
import { runMark } from '../../src/core/run-mark.js';
import { changesLoaded, initialState, type UiState } from '../../src/ui/state/app-state.js';
import type { UiKey } from '../../src/ui/state/key-names.js';
import { handleKey } from '../../src/ui/state/keys.js';
import { typeAnswer } from '../../src/ui/state/answer-field.js';
import { finishEnded, marksLoaded } from '../../src/ui/state/recorded-runs.js';
import { changesFrame } from '../../src/ui/view/changes-frame.js';
import type { Frame, Row } from '../../src/ui/view/frame.js';
import { continueHint } from '../../src/ui/view/result-frame.js';
import { addAuth, change, NO_KEY, story, summaryOf, T0 } from './support/fixtures.js';

const pane = { total: 50, viewport: 10 };
const press = (state: UiState, key: UiKey) => handleKey(state, key, { now: T0, pane });
const text = (r: Row): string => r.map((span) => span.text).join('');
const frameText = (frame: Frame): string =>
  [...frame.header, ...frame.body, ...frame.footer].map(text).join('\n');

/** The change list with add-auth (kept incomplete) and other-change (no run recorded). */
function listWithMarks(): UiState {
  const other = change('other-change', [story('1', 'Only', [false])]);
  let s = changesLoaded(initialState(2000).state, {
    status: 'ready',
    value: [summaryOf(addAuth()), summaryOf(other)],
  });
  s = marksLoaded(s, { 'add-auth': 'kept-incomplete' });
  return s;
}

describe('runMark: how a recorded run waits', () => {
  it.each([
    [{ status: 'active', outcome: null, choice: null }, 'interrupted'],
    [{ status: 'active', outcome: 'error', choice: null }, 'interrupted'],
    [{ status: 'active', outcome: 'stopped', choice: null }, 'waiting'],
    [{ status: 'active', outcome: 'max-retries', choice: null }, 'waiting'],
    [{ status: 'active', outcome: 'stopped', choice: 'keep' }, 'kept-incomplete'],
    [{ status: 'active', outcome: 'max-retries', choice: 'keep' }, 'kept-incomplete'],
    // Finished and kept: its work waits on ralph/<change> to be merged.
    [{ status: 'finished', outcome: 'complete', choice: 'keep' }, 'kept'],
    [{ status: 'finished', outcome: 'stopped', choice: 'cleanup' }, null],
    // A question without an answer: blocked, whatever else the record says (a crash after it).
    [{ status: 'active', outcome: 'blocked', choice: null, question: { answer: null } }, 'blocked'],
    [{ status: 'active', outcome: null, choice: null, question: { answer: null } }, 'blocked'],
    // Answered, not yet accepted (a crash after resume --answer): it only needs resuming.
    [{ status: 'active', outcome: null, choice: null, question: { answer: 'yes' } }, 'interrupted'],
    [{ status: 'finished', outcome: 'complete', choice: 'keep', question: null }, 'kept'],
  ] as const)('%j is %s', (record, mark) => {
    expect(runMark(record)).toBe(mark);
  });
});

describe('the change list: recorded runs', () => {
  it('marks the change and names r, c/k in the hint bar only when the selected one has a run', () => {
    const s = listWithMarks();
    const shown = frameText(changesFrame(s, { columns: 100, rows: 20 }, T0));
    expect(shown).toContain('add-auth [kept incomplete]');
    expect(shown).not.toContain('other-change [');
    expect(shown).toContain('r resume · c/k finish (cleanup/keep)');
    const other = press(s, 'down').state;
    expect(frameText(changesFrame(other, { columns: 100, rows: 20 }, T0))).not.toContain(
      'r resume',
    );
    const blocked = marksLoaded(s, { 'add-auth': 'blocked' });
    const blockedShown = frameText(changesFrame(blocked, { columns: 140, rows: 20 }, T0));
    expect(blockedShown).toContain('add-auth [blocked]');
    expect(blockedShown).toContain(
      'blocked: r answer its question here (or `ralphtool resume add-auth --answer "…"`)',
    );
    for (const mark of ['interrupted', 'waiting'] as const) {
      const marked = marksLoaded(s, { 'add-auth': mark });
      expect(frameText(changesFrame(marked, { columns: 100, rows: 20 }, T0))).toContain(
        `add-auth [${mark}]`,
      );
    }
  });

  it('a finished, kept run: marked kept, the hint says where its work is, r/c/k do nothing', () => {
    const s = marksLoaded(listWithMarks(), { 'add-auth': 'kept' });
    const shown = frameText(changesFrame(s, { columns: 140, rows: 20 }, T0));
    expect(shown).toContain('add-auth [kept]');
    expect(shown).toContain(
      'kept: its work is on ralph/add-auth, not merged (`git merge ralph/add-auth`)',
    );
    expect(shown).not.toContain('r resume');
    for (const key of ['r', 'c', 'k'] as const) {
      const t = press(s, key);
      expect(t.effects).toEqual([]);
      expect(t.state.recorded.confirming).toBeNull();
    }
  });

  it('r resumes the selected run on the Loop screen', () => {
    const t = press(listWithMarks(), 'r');
    expect(t.state.screen).toBe('loop');
    expect(t.state.run?.change).toBe('add-auth');
    expect(t.effects).toEqual([{ type: 'resume-run', change: 'add-auth' }]);
  });

  it('r on a blocked run opens the answer field: typed text, Backspace, Enter resumes with the answer', () => {
    const blocked = marksLoaded(listWithMarks(), { 'add-auth': 'blocked' });
    const open = press(blocked, 'r');
    expect(open.effects).toEqual([]);
    expect(open.state.screen).toBe('changes');
    expect(open.state.recorded.answering).toEqual({ change: 'add-auth', text: '' });
    // A paste with a line break and control characters, a Backspace, then more.
    let s = open.state;
    for (const [input, flags] of [
      ['SQLite,\nplease\u0007', {}],
      ['', { backspace: true }],
      ['e', {}],
    ] as const) {
      s = typeAnswer(s, input, { ...NO_KEY, ...flags })!.state;
    }
    expect(s.recorded.answering?.text).toBe('SQLite, please');
    expect(frameText(changesFrame(s, { columns: 160, rows: 20 }, T0))).toContain(
      'answer for add-auth: SQLite, please▏ · Enter resumes with it · Esc cancels',
    );
    const sent = typeAnswer(s, '\r', { ...NO_KEY, return: true })!;
    expect(sent.effects).toEqual([
      { type: 'resume-run', change: 'add-auth', answer: 'SQLite, please' },
    ]);
    expect(sent.state.screen).toBe('loop');
    expect(sent.state.recorded.answering).toBeNull();
  });

  it('the answer field: Enter with nothing typed does nothing, Esc closes it, Ctrl-C is left to the screen', () => {
    const open = press(marksLoaded(listWithMarks(), { 'add-auth': 'blocked' }), 'r').state;
    const empty = typeAnswer(typeAnswer(open, '  ', NO_KEY)!.state, '\r', {
      ...NO_KEY,
      return: true,
    })!;
    expect(empty.effects).toEqual([]);
    expect(empty.state.recorded.answering).not.toBeNull();
    expect(typeAnswer(open, '', { ...NO_KEY, escape: true })!.state.recorded.answering).toBeNull();
    expect(typeAnswer(open, 'c', { ...NO_KEY, ctrl: true })).toBeNull();
    // Without an open field nothing is typed.
    expect(typeAnswer(listWithMarks(), 'x', NO_KEY)).toBeNull();
  });

  it('r, c and k do nothing on a change without a recorded run', () => {
    const other = press(listWithMarks(), 'down').state;
    for (const key of ['r', 'c', 'k'] as const) {
      const t = press(other, key);
      expect(t.effects).toEqual([]);
      expect(t.state.screen).toBe('changes');
      expect(t.state.recorded.confirming).toBeNull();
    }
  });

  it.each([
    ['c', 'cleanup'],
    ['k', 'keep'],
  ] as const)('%s finishes with %s only when pressed twice; another key cancels', (key, choice) => {
    const once = press(listWithMarks(), key);
    expect(once.effects).toEqual([]);
    expect(once.state.recorded.confirming).toEqual({ change: 'add-auth', choice });
    const hint = frameText(changesFrame(once.state, { columns: 200, rows: 20 }, T0));
    expect(hint).toContain(`press ${key} again to finish add-auth with ${choice}`);

    const cancelled = press(once.state, 'down');
    expect(cancelled.state.recorded.confirming).toBeNull();
    expect(press(cancelled.state, key).effects).toEqual([]);

    const other = press(once.state, key === 'c' ? 'k' : 'c');
    expect(other.effects).toEqual([]);

    const twice = press(once.state, key);
    expect(twice.effects).toEqual([{ type: 'finish-run', change: 'add-auth', choice }]);
    expect(twice.state.recorded.notice?.text).toContain(`finishing add-auth (${choice})`);
  });

  it('a finish that ended says so and reloads the list (and its marks)', () => {
    const ok = finishEnded(listWithMarks(), { message: 'cleanup done: back on main', ok: true });
    expect(ok.effects).toEqual([{ type: 'load-changes' }]);
    expect(ok.state.recorded.notice).toEqual({ text: 'cleanup done: back on main', tone: 'good' });
    const failed = finishEnded(listWithMarks(), {
      message: 'the original branch\nis gone',
      ok: false,
    });
    expect(failed.state.recorded.notice).toEqual({
      text: 'the original branch is gone',
      tone: 'bad',
    });
  });
});

describe('the Result screen: how to continue a run that is not over', () => {
  it('after a fatal error, names resume and finish exactly', () => {
    const lines = continueHint('add-auth', { outcome: 'error', choice: null });
    expect(lines[0]).toContain('stopped on an error');
    expect(lines).toContain('  continue: ralphtool resume add-auth   (r on the change list)');
    expect(lines).toContain('  end it:   ralphtool finish add-auth --cleanup|--keep');
  });

  it('after keep with stories left, or no choice, too; nothing once the run is over', () => {
    expect(continueHint('add-auth', { outcome: 'stopped', choice: 'keep' })[0]).toContain(
      'Kept incomplete',
    );
    expect(continueHint('add-auth', { outcome: 'max-retries', choice: null })).toHaveLength(3);
    expect(continueHint('add-auth', { outcome: 'complete', choice: 'keep' })).toEqual([]);
    expect(continueHint('add-auth', { outcome: 'stopped', choice: 'cleanup' })).toEqual([]);
    expect(continueHint('add-auth', null)).toEqual([]);
  });
});
