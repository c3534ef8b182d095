import { afterEach, describe, expect, it } from 'vitest';
import { ProgressPrinter } from '../../src/cli/render/progress.js';
import { plainStyle } from '../../src/format/style.js';
import { LoopHarness } from '../support/loop-harness.js';
import { RunFixture, stories, succeed } from './helpers.js';

const CHANGE = 'plain-progress';

let fixture: LoopHarness | RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

/** The summary table's row for a story: its cells split on runs of spaces. */
function row(stdout: string, storyId: string): string[] | undefined {
  return stdout
    .split('\n')
    .map((line) => line.trim().split(/\s{2,}/))
    .find((cells) => cells[0] === storyId && cells.length >= 4);
}

describe('ralphtool run without --json', () => {
  it('prints story n/total, failures with kind and reason, checkpoints and a summary table', async () => {
    fixture = new RunFixture(CHANGE, stories(2)).scenario({
      '1-1': [{ write: 'src/a.txt', content: 'a\n' }, { signal: 'FAILED: needs a database' }],
      '1-2': succeed('src/a.txt', 'a\n'),
      '2-1': succeed('src/b.txt', 'b\n'),
    });
    const result = await fixture.run(['--max-retries', '1']);
    expect(result.exitCode).toBe(0);
    const out = result.stdout;

    expect(out).not.toContain('{"type"');
    expect(out).not.toContain('\u001b['); // NO_COLOR
    expect(out).toMatch(/\[1\/2\] Story 1: Story 1/);
    expect(out).toMatch(/\[2\/2\] Story 2: Story 2/);
    expect(out).toContain('failed-signal');
    expect(out).toContain('needs a database');
    const checkpoints = fixture
      .git('rev-list', '--max-count=2', `ralph/${CHANGE}`)
      .trim()
      .split('\n');
    for (const sha of checkpoints) expect(out).toContain(sha.slice(0, 7));
    expect(out).toMatch(/checkpoint/i);

    const header = out.split('\n').find((line) => line.includes('STORY'));
    expect(header).toBeDefined();
    expect(header).toContain('ATTEMPTS');
    expect(header).toContain('RESULT');
    expect(row(out, '1')).toEqual(expect.arrayContaining(['2', 'done']));
    expect(row(out, '2')).toEqual(expect.arrayContaining(['1', 'done']));
  });
});

describe('the plain progress printer on the loop’s events', () => {
  it('shows an exhausted story and the one never tried in the summary', async () => {
    fixture = new LoopHarness(CHANGE, stories(2)).scenario({
      '1-*': [{ signal: 'FAILED: impossible' }],
      '2-*': succeed('src/b.txt', 'b\n'),
    });
    const result = await fixture.run({ maxRetries: 1, completion: 'keep' });
    expect(result.exitCode).toBe(3);
    // The printer `ralphtool run` uses without --json (the test above runs it for real).
    let out = '';
    const printer = new ProgressPrinter((text) => {
      out += text;
    }, plainStyle);
    for (const event of result.events()) printer.handle(event);
    expect(out).toContain('impossible');
    expect(row(out, '1')).toEqual(expect.arrayContaining(['2', 'exhausted']));
    expect(row(out, '2')?.[0]).toBe('2');
    expect(row(out, '2')).not.toContain('done');
    // What happened and where the user is now, in words.
    expect(out).toMatch(/retries/);
    expect(out).toContain(`ralph/${CHANGE}`);
  });
});
