import { existsSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { FAKE_AGENT, quote, RunFixture, stories, type Step } from '../../run/helpers.js';

// docs/contract.md, "The prompt template": `.ralphtool/prompt.md` replaces the built-in prompt,
// is read once as a run starts (its intent keeps it, so a resume goes on with it whatever the
// file says now), and a template ralphtool cannot work with is refused before anything changes.

const CHANGE = 'templated';
const AGENT = [
  '--agent',
  'command',
  '--agent-command',
  `${quote(process.execPath)} ${quote(FAKE_AGENT)}`,
];
const FAILS: Step[] = [{ signal: 'FAILED: the first try fails' }];
const DONE: Step[] = [
  { write: 'done.txt', content: 'yes\n' },
  { tick: 'all' },
  { signal: 'COMPLETE' },
];
const TEMPLATE = [
  '# House prompt v1',
  '',
  '{{story}}',
  '',
  '{{answer}}',
  '',
  '{{previous-failure}}',
  '',
  '{{tasks}}',
  '',
  'Our rule: small commits of thought.',
  '',
  '{{signals}}',
  '',
].join('\n');

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

function commitTemplate(f: RunFixture, text: string): void {
  f.write('.ralphtool/prompt.md', text);
  f.git('add', '-A');
  f.git('commit', '-q', '-m', 'prompt template');
}

describe('ralphtool run with a prompt template', () => {
  it('prompts with the template; a resume keeps the one the run started with', async () => {
    const f = (fixture = new RunFixture(CHANGE, stories(1)));
    f.scenario({ '1-1': FAILS, '1-2': DONE });
    commitTemplate(f, TEMPLATE);
    const first = await runCli(
      ['run', CHANGE, ...AGENT, '--max-retries', '0', '--on-complete', 'keep'],
      {
        cwd: f.dir,
        env: f.env(),
      },
    );
    expect(first.stdout, first.stderr).toMatch(/attempt 1 failed/);
    const one = f.prompt('1', 1);
    expect(one.startsWith('# House prompt v1\n\n# Working on Story 1:')).toBe(true);
    expect(one).toContain('Our rule: small commits of thought.');
    expect(one).not.toContain('## Shared learnings');
    // The project rewrites its template meanwhile (even into one that would be refused).
    commitTemplate(f, '# House prompt v2 {{story}}\n');
    const resumed = await runCli(
      ['resume', CHANGE, '--max-retries', '1', '--on-complete', 'keep'],
      {
        cwd: f.dir,
        env: f.env(),
      },
    );
    expect(resumed.exitCode, resumed.stderr + resumed.stdout).toBe(0);
    const two = f.prompt('1', 2);
    expect(two.startsWith('# House prompt v1\n')).toBe(true);
    expect(two).toContain('the first try fails');
    expect(two).not.toContain('v2');
  });

  it('refuses a template without a required placeholder or with an unknown one: one line, exit 2, nothing changed', async () => {
    const f = (fixture = new RunFixture(CHANGE, stories(1)));
    f.scenario({ '1-1': DONE });
    commitTemplate(f, '{{story}}\n{{tasks}}\n{{learning}}\n');
    const head = f.git('rev-parse', 'HEAD');
    const result = await runCli(['run', CHANGE, ...AGENT, '--on-complete', 'keep'], {
      cwd: f.dir,
      env: f.env(),
    });
    expect(result.exitCode).toBe(2);
    const file = path.join(f.dir, '.ralphtool', 'prompt.md');
    expect(result.stderr).toMatch(
      new RegExp(
        `^ralphtool: ${file.replace(/[.]/g, '\\.')}: missing \\{\\{answer\\}\\}, \\{\\{signals\\}\\}; unknown \\{\\{learning\\}\\} \\(did you mean \\{\\{learnings\\}\\}\\?\\): [^\\n]*\\n$`,
      ),
    );
    expect(f.invoked('1', 1)).toBe(false);
    expect(f.git('rev-parse', 'HEAD')).toBe(head);
    expect(f.git('status', '--porcelain')).toBe('');
    expect(f.git('branch', '--list', `ralph/${CHANGE}`)).toBe('');
    expect(existsSync(f.runDir)).toBe(false);
    // `config`, which says what a run would use, refuses it the same way.
    const config = await runCli(['config'], { cwd: f.dir, env: f.env() });
    expect(config.exitCode).toBe(2);
    expect(config.stderr).toBe(result.stderr);
  });
});
