import { afterEach, describe, expect, it } from 'vitest';
import { ProgressPrinter } from '../../../src/cli/render/progress.js';
import { plainStyle } from '../../../src/format/style.js';
import { RunFixture, stories, succeed } from '../../run/helpers.js';
import { row } from '../../support/plain-output.js';

const CHANGE = 'plain-progress';

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

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

describe('ralphtool run without --json: one agent error, said once', () => {
  const asClaude = (f: RunFixture, args: string[]): ReturnType<RunFixture['run']> =>
    f.run(['--agent', 'claude', '--on-complete', 'keep', ...args], {
      agent: false,
      env: { RALPHTOOL_CLAUDE_BIN: f.agentWrapper(), FAKE_AGENT_FORMAT: 'claude', IS_SANDBOX: '1' },
    });
  const count = (text: string, part: string): number => text.split(part).length - 1;

  it('prints an agent error once per attempt; the failure and the exhausted story refer to it', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario({
      '*': [
        { write: 'src/partial.txt', content: 'partial\n' },
        { isError: 'API Error: 529 overloaded' },
      ],
    });
    const result = await asClaude(fixture, ['--max-retries', '1']);
    expect(result.exitCode).toBe(3);
    const out = result.stdout;
    // Two attempts, each failing with the error: two lines say it, nothing repeats it.
    expect(count(out, '529 overloaded')).toBe(2);
    expect(out).toContain('warning: Claude Code reported an error: API Error: 529 overloaded');
    expect(out).toContain('✗ attempt 1 failed (agent-error): the error above');
    expect(out).toContain('✗ attempt 2 failed (agent-error): the error above');
    expect(out).toContain('✗ Story 1 used all 2 attempts (the last failure is above)');
    expect(out).not.toContain('failed all 2 attempt(s)');
  });

  it('prints an error retrying cannot fix once, whole, and says it ends the run', async () => {
    fixture = new RunFixture(CHANGE, stories(2)).scenario({
      '*': [
        { write: 'src/partial.txt', content: 'partial\n' },
        { isError: 'Invalid API key · Please run /login' },
      ],
    });
    const result = await asClaude(fixture, ['--max-retries', '3']);
    expect(result.exitCode).toBe(1);
    const out = result.stdout;
    expect(count(out, 'not logged in')).toBe(1);
    expect(count(out, 'Invalid API key · Please run /login')).toBe(1);
    expect(out).toContain("error: attempt 1's failure above ends the run (retrying cannot fix it)");
  });

  it('still prints a warning that is not the attempt’s failure, and a failure that is not a warning', () => {
    let out = '';
    const printer = new ProgressPrinter((text) => {
      out += text;
    }, plainStyle);
    printer.handle({
      type: 'story.started',
      storyId: '1',
      title: 'One',
      index: 1,
      total: 1,
      completed: 0,
      attempt: 1,
    });
    printer.handle({ type: 'error', message: 'a submodule has changes', fatal: false });
    printer.handle({
      type: 'attempt.failed',
      storyId: '1',
      attempt: 1,
      kind: 'verify-failed',
      reason: 'npm test exited 1',
    });
    printer.handle({ type: 'error', message: 'disk full', fatal: true });
    expect(out).toContain('warning: a submodule has changes');
    expect(out).toContain('✗ attempt 1 failed (verify-failed): npm test exited 1');
    expect(out).toContain('error: disk full');
  });
});

describe('ralphtool run without --json into a pipe (a CI log)', () => {
  it('writes the lines under a story whole, each on one line', async () => {
    const said = `Found it: ${'the config loader reads the wrong file, '.repeat(8)}fixed.`;
    fixture = new RunFixture(CHANGE, stories(1)).scenario({
      '1-1': [{ say: said }, ...succeed('src/a.txt', 'a\n')],
    });
    const result = await fixture.run([]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout.split('\n')).toContain(`  │ ${said}`);
  });
});
