import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseTaskLine } from '../../src/openspec/task-line.js';

/** OpenSpec's own rule, copied from dist/utils/task-progress.js: the referee for our scanner. */
const OPENSPEC_TASK_LINE =
  /^\s*(?:[-*+]|\d{1,9}[.)])\s*\[(?:\s*([^\]\s]?)\s*\](?![([])|\s+\])\s*(.*)/;

function openspecReads(line: string): { done: boolean; description: string } | null {
  const match = OPENSPEC_TASK_LINE.exec(line);
  if (match === null) return null;
  return { done: (match[1] ?? '').toLowerCase() === 'x', description: (match[2] ?? '').trim() };
}

function oursReads(line: string): { done: boolean; description: string } | null {
  const task = parseTaskLine(line);
  return task === null ? null : { done: task.done, description: task.description };
}

const piece = fc.constantFrom(
  ' ',
  '  ',
  '\t',
  '\r',
  '\u00a0',
  '\u2028',
  '\u3000',
  '\ufeff',
  '\u200b',
  '-',
  '*',
  '+',
  '1',
  '42',
  '1234567890',
  '0',
  '.',
  ')',
  '[',
  ']',
  '(',
  '[]',
  '[ ]',
  'x',
  'X',
  '~',
  'a',
  'K',
  '#',
  '`',
  '\u{1F600}',
  'text',
  '1.1',
);
const anyLine = fc.array(piece, { maxLength: 14 }).map((parts) => parts.join(''));
const taskLike = fc
  .tuple(
    fc.constantFrom('', ' ', '  ', '\t', '\u00a0', '\ufeff'),
    fc.constantFrom('-', '*', '+', '1.', '2)', '123456789.', '1234567890.', 'a.', '#', '--'),
    fc.constantFrom('', ' ', '\t', '  '),
    fc.array(fc.constantFrom(' ', 'x', 'X', '~', '\t', 'ab', '\u{1F600}', ']', '\u00a0', ''), {
      maxLength: 4,
    }),
    fc.constantFrom(']', ''),
    fc.constantFrom('', '(', '[', ' ', 'done', ' 1.1 Do it\r', '\r', ' a\u2028b', ' x '),
  )
  .map(
    ([indent, marker, gap, inside, close, rest]) =>
      `${indent}${marker}${gap}[${inside.join('')}${close}${rest}`,
  );

describe('parseTaskLine', () => {
  it('reads exactly the lines OpenSpec counts, with the same done flag and text', () => {
    fc.assert(
      fc.property(fc.oneof(anyLine, taskLike), (line) => {
        expect(oursReads(line)).toEqual(openspecReads(line));
      }),
      { numRuns: 30_000 },
    );
  });

  it.each([
    ['- [ ] open', false, 'open'],
    ['- [x] done', true, 'done'],
    ['- [X] done', true, 'done'],
    ['* [~] wip', false, 'wip'],
    ['+ [] empty box', false, 'empty box'],
    ['1. [x] ordered', true, 'ordered'],
    ['3) [ ] ordered paren', false, 'ordered paren'],
    ['    - [ x ] padded', true, 'padded'],
    ['-[x]tight', true, 'tight'],
    ['- [ ](link) blank box before a link', false, '(link) blank box before a link'],
    ['- [ ] crlf line\r', false, 'crlf line'],
  ])('counts %j', (line, done, description) => {
    expect(oursReads(line)).toEqual({ done, description });
  });

  it.each([
    '- [A](https://example.com)',
    '- [1][ref]',
    '- [WIP] two letters',
    '- []() empty link',
    '1234567890. [ ] ten digits',
    'a. [ ] letter marker',
    '# [ ] heading',
    '- plain item',
    '',
  ])('does not count %j', (line) => {
    expect(parseTaskLine(line)).toBeNull();
  });

  it('measures indentation with tabs as 4 columns', () => {
    expect(parseTaskLine('\t- [ ] a')?.indent).toBe(4);
    expect(parseTaskLine('  \t- [ ] a')?.indent).toBe(4);
    expect(parseTaskLine('      - [ ] a')?.indent).toBe(6);
  });

  it('stays linear on a long run of spaces inside a box', () => {
    const line = `- [${' '.repeat(2_000_000)}x${' '.repeat(2_000_000)}`;
    expect(parseTaskLine(line)).toBeNull();
    expect(parseTaskLine(`${line}]`)?.done).toBe(true);
  });
});
