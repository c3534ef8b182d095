import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { splitCommandLine } from '../../src/process/command-line.js';
import { UsageError } from '../../src/core/errors.js';
import { summarizeToolInput, oneLine } from '../../src/agents/tool-summary.js';

describe('splitCommandLine', () => {
  it.each([
    ['my-agent', ['my-agent']],
    ['  my-agent   --fast\t-v \n', ['my-agent', '--fast', '-v']],
    [
      `agent --msg 'two words' "and three words"`,
      ['agent', '--msg', 'two words', 'and three words'],
    ],
    [`a 'it'\\''s' "say \\"hi\\""`, ['a', "it's", 'say "hi"']],
    [`a "back\\slash \\$HOME \\\\"`, ['a', 'back\\slash $HOME \\']],
    [`a 'no \\escape "here"'`, ['a', 'no \\escape "here"']],
    ['a two\\ words \\"x', ['a', 'two words', '"x']],
    [`a '' ""`, ['a', '', '']],
    [`a pre"mid"'post'`, ['a', 'premidpost']],
    ['a \\\nb', ['a', 'b']],
    ['x $HOME | rm -rf / ; `id` *', ['x', '$HOME', '|', 'rm', '-rf', '/', ';', '`id`', '*']],
    ['', []],
    ['   ', []],
  ])('splits %j', (line, words) => {
    expect(splitCommandLine(line)).toEqual(words);
  });

  it.each([`a 'open`, 'a "open', 'a "x\\"', 'trailing \\'])('rejects %j as bad usage', (line) => {
    expect(() => splitCommandLine(line)).toThrow(UsageError);
  });

  it('names the option the command line came from', () => {
    expect(() => splitCommandLine(`npm 'oops`, '--verify')).toThrow(
      /^--verify has an unclosed ' quote/,
    );
    expect(() => splitCommandLine('x \\', '--verify')).toThrow(
      /^--verify ends with a lone backslash/,
    );
    expect(() => splitCommandLine('a "open')).toThrow(/^--agent-command has an unclosed " quote/);
  });

  it('gives back any words quoted the way a shell user would', () => {
    const quote = (w: string): string => `'${w.replace(/'/g, `'\\''`)}'`;
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 1, maxLength: 6 }), (words) => {
        expect(splitCommandLine(words.map(quote).join(' '))).toEqual(words);
      }),
    );
  });
});

describe('tool summaries', () => {
  it('names the file relative to the repository, or the command, on one short line', () => {
    expect(summarizeToolInput({ file_path: '/repo/src/a.ts', content: 'x' }, '/repo')).toBe(
      'src/a.ts',
    );
    expect(summarizeToolInput({ file_path: '/elsewhere/a.ts' }, '/repo')).toBe('/elsewhere/a.ts');
    expect(summarizeToolInput({ command: '/repo/run.sh\n--all' }, '/repo')).toBe(
      '/repo/run.sh --all',
    );
    expect(summarizeToolInput({ pattern: 'TODO', path: '' })).toBe('TODO');
    expect(summarizeToolInput({ todos: [{}, {}] })).toBe('2 todos');
    expect(summarizeToolInput({ n: 1 })).toBe('');
    expect(oneLine('x'.repeat(500))).toHaveLength(120);
  });
});
