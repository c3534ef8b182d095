import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Story } from '../../src/core/change.js';
import { parseTasks } from '../../src/openspec/tasks.js';

// Property tests for the tasks.md reader: for any text it never throws or hangs (inputs are
// bounded; the test timeout is the hang detector), every line OpenSpec counts as a task is in
// exactly one story, and ticking or unticking one task changes exactly that task.

/** OpenSpec's own task rule (dist/utils/task-progress.js), applied to each '\n'-split line. */
const OPENSPEC_TASK_LINE =
  /^\s*(?:[-*+]|\d{1,9}[.)])\s*\[(?:\s*([^\]\s]?)\s*\](?![([])|\s+\])\s*(.*)/;

/** 1-based line numbers OpenSpec counts as tasks, with their done flag. */
function openspecTasks(text: string): Map<number, boolean> {
  const out = new Map<number, boolean>();
  text.split('\n').forEach((line, i) => {
    const match = OPENSPEC_TASK_LINE.exec(line);
    if (match) out.set(i + 1, (match[1] ?? '').toLowerCase() === 'x');
  });
  return out;
}

const RUNS = Number(process.env.FUZZ_RUNS ?? 300);

/** Lines that look like what real tasks.md files hold, and the near misses around them. */
const line = fc.oneof(
  { weight: 4, arbitrary: taskLine() },
  { weight: 2, arbitrary: headingLine() },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '',
      ' ',
      '```',
      '~~~',
      '````md',
      '\t',
      '\r',
      '---',
      '> - [ ] quoted',
    ),
  },
  { weight: 1, arbitrary: fc.string({ maxLength: 30, unit: 'binary' }) },
  {
    weight: 1,
    arbitrary: fc.string({
      maxLength: 30,
      unit: fc.constantFrom(
        ' ',
        '[',
        ']',
        'x',
        '-',
        '#',
        '1',
        '.',
        ')',
        '\t',
        '`',
        '\u00a0',
        '\ufeff',
        '\r',
      ),
    }),
  },
);

function taskLine(): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom('', ' ', '  ', '    ', '\t', '\u00a0', '\ufeff', '        '),
      fc.constantFrom('-', '*', '+', '1.', '2)', '10.', '123456789.', '1234567890.', 'a.', '--'),
      fc.constantFrom('', ' ', '  ', '\t'),
      fc.constantFrom(
        '[ ]',
        '[x]',
        '[X]',
        '[]',
        '[  ]',
        '[ x ]',
        '[~]',
        '[xx]',
        '[ ',
        '[\t]',
        '[\u3000x]',
      ),
      fc.constantFrom('', '(', '[', ' '),
      fc.constantFrom(
        '',
        '1.1 Do it',
        '2.3a Sub',
        'Plain task',
        '1.5x faster',
        ' 3.1: x',
        '\r',
        'x]',
      ),
    )
    .map(
      ([indent, marker, gap, box, after, text]) => `${indent}${marker}${gap}${box}${after}${text}`,
    );
}

function headingLine(): fc.Arbitrary<string> {
  return fc
    .tuple(
      fc.constantFrom('', ' ', '   ', '    '),
      fc.constantFrom('#', '##', '###', '####', '#######'),
      fc.constantFrom(' ', '', '\t'),
      fc.constantFrom(
        '1. Setup',
        '1) Setup',
        '2. Core',
        '2.1 Sub',
        'Phase 3: Polish',
        'Core',
        '',
        '1. Dup',
        '#',
        'Title ##',
      ),
    )
    .map(([indent, hashes, gap, title]) => `${indent}${hashes}${gap}${title}`);
}

const document = fc
  .tuple(fc.array(line, { maxLength: 60 }), fc.constantFrom('\n', '\r\n'), fc.boolean())
  .map(([lines, eol, bom]) => `${bom ? '\ufeff' : ''}${lines.join(eol)}`);

const anyText = fc.oneof(
  document,
  fc.string({ maxLength: 400, unit: 'binary' }),
  fc.string({ maxLength: 400, unit: 'grapheme' }),
);

/** Every task of every story, keyed by its line. */
function tasksByLine(stories: readonly Story[]): Map<number, { storyId: string; done: boolean }> {
  const out = new Map<number, { storyId: string; done: boolean }>();
  for (const story of stories) {
    for (const task of story.tasks) {
      if (out.has(task.line))
        throw new Error(`line ${task.line} is in two stories or twice in one`);
      out.set(task.line, { storyId: story.id, done: task.done });
    }
  }
  return out;
}

describe('parseTasks under random input', () => {
  it('never throws, and every OpenSpec task line is in exactly one story with its done flag', () => {
    fc.assert(
      fc.property(anyText, (text) => {
        const stories = parseTasks(text);
        const ours = tasksByLine(stories);
        const theirs = openspecTasks(text);
        expect([...ours.keys()].sort((a, b) => a - b)).toEqual(
          [...theirs.keys()].sort((a, b) => a - b),
        );
        for (const [lineNo, done] of theirs) expect(ours.get(lineNo)?.done).toBe(done);
        // Story ids are unique and a story is done exactly when all of its tasks are.
        expect(new Set(stories.map((s) => s.id)).size).toBe(stories.length);
        for (const story of stories) {
          expect(story.tasks.length).toBeGreaterThan(0);
          expect(story.done).toBe(story.tasks.every((t) => t.done));
        }
        // Generated ids (tasks without their own N.M token) never repeat an id in use.
        const explicit = stories.flatMap((s) => s.tasks.map((t) => t.id));
        const generated = explicit.filter((id, i) => explicit.indexOf(id) !== i);
        for (const id of generated) expect(/^\d+(?:\.\d+)+[a-z]?$/.test(id)).toBe(true);
      }),
      { numRuns: RUNS },
    );
  });

  it('ticking or unticking one task changes exactly that task', () => {
    fc.assert(
      fc.property(document, fc.nat(), (text, pick) => {
        const theirs = [...openspecTasks(text).entries()];
        fc.pre(theirs.length > 0);
        const [lineNo, done] = theirs[pick % theirs.length] as [number, boolean];
        const lines = text.split('\n');
        const toggled = toggleBox(lines[lineNo - 1] ?? '', !done);
        fc.pre(toggled !== null);
        lines[lineNo - 1] = toggled;
        const after = lines.join('\n');
        // The edit must still be a task line to OpenSpec, with the new state.
        fc.pre(openspecTasks(after).get(lineNo) === !done);

        const before = parseTasks(text);
        const changed = parseTasks(after);
        expect(changed.map((s) => [s.id, s.title, s.line])).toEqual(
          before.map((s) => [s.id, s.title, s.line]),
        );
        for (const [i, story] of before.entries()) {
          const other = changed[i] as Story;
          expect(other.tasks.length).toBe(story.tasks.length);
          for (const [j, task] of story.tasks.entries()) {
            const now = other.tasks[j];
            const expected = task.line === lineNo ? { ...task, done: !done } : task;
            expect(now).toEqual(expected);
          }
          expect(other.done).toBe(other.tasks.every((t) => t.done));
        }
      }),
      { numRuns: RUNS },
    );
  });

  it('stays linear on pathological lines (long runs of spaces, brackets, hashes, digits)', () => {
    // OpenSpec's regex itself backtracks quadratically on some of these, so the expected task
    // counts are written down instead of asked of it.
    const big = 2_000_000;
    const cases: [string, number][] = [
      [`- [${' '.repeat(big)}`, 0],
      [`- [${' '.repeat(big)}]`, 1],
      [`${'#'.repeat(big)} title`, 0],
      [`${'1'.repeat(big)}. [ ] x`, 0],
      [`- ${'['.repeat(big)}`, 0],
      [`${'`'.repeat(big)}\n- [ ] 1.1 in a fence`, 1],
      [Array.from({ length: 200_000 }, (_, i) => `- [ ] ${i % 7}.${i} t`).join('\n'), 200_000],
      [`## 1. A\n${'  '.repeat(100_000)}- [x] deep`, 1],
    ];
    for (const [input, count] of cases) {
      expect(tasksByLine(parseTasks(input)).size).toBe(count);
    }
  });
});

/**
 * The line with its box set to `[x]` or `[ ]`, keeping everything else byte for byte; null when
 * the line has no box to edit.
 */
function toggleBox(line: string, check: boolean): string | null {
  const open = line.indexOf('[');
  if (open < 0) return null;
  const close = line.indexOf(']', open + 1);
  if (close < 0) return null;
  return `${line.slice(0, open)}[${check ? 'x' : ' '}]${line.slice(close + 1)}`;
}
