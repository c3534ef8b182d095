import { describe, expect, it } from 'vitest';
import {
  createNoJsonCheck,
  NO_JSON_BYTES,
  NO_JSON_LINES,
  noJsonMessage,
} from '../../src/agents/no-json-check.js';

describe('the check for a JSON-lines agent that prints no JSON', () => {
  it('decides at the 20th line of text, naming the first non-blank one', () => {
    const check = createNoJsonCheck();
    const verdicts = ['', 'Usage: claude [options]', ...Array<string>(17).fill('  --help')].map(
      (line) => check.observe(line, false),
    );
    expect(NO_JSON_LINES).toBe(20);
    expect(verdicts.at(-1)).toEqual({ kind: 'undecided', seenText: true });
    expect(verdicts[0]).toEqual({ kind: 'undecided', seenText: false });
    expect(check.observe('  --version', false)).toEqual({
      kind: 'no-json',
      firstLine: 'Usage: claude [options]',
    });
  });

  it('decides at 64 KiB of text in fewer lines', () => {
    const check = createNoJsonCheck();
    expect(check.observe('x'.repeat(NO_JSON_BYTES - 2), false).kind).toBe('undecided');
    expect(check.observe('y', false)).toEqual({ kind: 'no-json', firstLine: 'x'.repeat(65534) });
  });

  it('is settled for good by one JSON object line, not by other JSON values', () => {
    const check = createNoJsonCheck({ lines: 3 });
    expect(check.observe('[1,2]', false).kind).toBe('undecided');
    expect(check.observe('"text"', false).kind).toBe('undecided');
    expect(check.observe('  {"type":"system"}  ', false)).toEqual({ kind: 'json' });
    expect(check.observe('text', false)).toEqual({ kind: 'json' });
    expect(check.settle()).toEqual({ kind: 'json' });
  });

  it('takes a cut line that starts like an object for one (a huge first event)', () => {
    const check = createNoJsonCheck({ lines: 1 });
    expect(check.observe('{"type":"assistant","message":{"content":[{"te', true)).toEqual({
      kind: 'json',
    });
    expect(createNoJsonCheck({ lines: 1 }).observe('Error: x', true).kind).toBe('no-json');
  });

  it('settles on text seen, and stays undecided on no output or only blank lines', () => {
    const some = createNoJsonCheck();
    some.observe('error: unknown option', false);
    expect(some.settle()).toEqual({ kind: 'no-json', firstLine: 'error: unknown option' });
    const blank = createNoJsonCheck();
    blank.observe('', false);
    expect(blank.settle()).toEqual({ kind: 'undecided', seenText: false });
    expect(createNoJsonCheck().settle()).toEqual({ kind: 'undecided', seenText: false });
  });

  it('quotes the first line on one line, cut, without escape sequences', () => {
    const message = noJsonMessage(
      'claude',
      { product: 'Claude Code', flag: '--output-format stream-json', fix: 'Upgrade it.' },
      `\u001b[31mUsage:\u001b[0m claude\t${'x'.repeat(300)}`,
    );
    expect(message).toMatch(
      /^Claude Code printed no JSON events \(first line: "Usage: claude {2}x+…"\): is `claude` the Claude Code CLI, and a version that supports --output-format stream-json\? Upgrade it\.$/,
    );
    expect(message.length).toBeLessThan(300);
  });
});
