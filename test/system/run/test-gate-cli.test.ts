import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { fakeAgentFlags, quote, RunFixture, single, stories } from '../../run/helpers.js';
import { APP_TEST, NODE_TEST } from '../../support/node-test-project.js';

// docs/contract.md, "Tests the agent may not weaken", through the CLI as a user runs it: the
// executable fake agent, real git, and real verify commands (Node's own test runner, and a
// script that fails once).

const CHANGE = 'gate-cli';
const NODE = quote(process.execPath);

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe('ralphtool run: the gate cannot be gamed', () => {
  it('reverts an attempt that deletes the failing test and retries it with the reason; the work is accepted', async () => {
    const f = (fixture = new RunFixture(CHANGE, stories(1), { 'test/app.test.mjs': APP_TEST }));
    f.scenario({
      '1-1': [{ delete: 'test/app.test.mjs' }, { tick: 'all' }, { signal: 'COMPLETE' }],
      '1-2': [
        { write: 'src/app.txt', content: 'app v2\n' },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    const result = await f.run([
      '--json',
      '--max-retries',
      '1',
      '--verify-strict',
      '--verify',
      NODE_TEST,
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const failure = single(result.events(), 'attempt.failed');
    expect(failure).toMatchObject({ attempt: 1, kind: 'tests-weakened' });
    expect(String(failure.reason)).toContain('test/app.test.mjs deleted');
    expect(f.prompt('1', 2)).toContain('test/app.test.mjs deleted');
    expect(f.git('show', `ralph/${CHANGE}:test/app.test.mjs`)).toBe(APP_TEST);
    // The deletion is kept where every failed attempt is: its attempt ref.
    expect(
      f.git('ls-tree', '--name-only', '-r', `refs/ralphtool/${CHANGE}/attempts/1-1`),
    ).not.toContain('test/app.test.mjs');
  });

  it('counts a verify command that fails once and passes when run again as flaky, in the output and the report', async () => {
    const f = (fixture = new RunFixture(CHANGE, stories(1)));
    const counter = path.join(f.scratch, 'runs');
    writeFileSync(counter, '0');
    const script = path.join(f.scratch, 'flaky.mjs');
    writeFileSync(
      script,
      [
        "import { readFileSync, writeFileSync } from 'node:fs';",
        `const n = Number(readFileSync(${JSON.stringify(counter)}, 'utf8')) + 1;`,
        `writeFileSync(${JSON.stringify(counter)}, String(n));`,
        "if (n === 1) { console.error('ECONNRESET'); process.exit(1); }",
        "console.log('# tests 1\\n# pass 1');",
      ].join('\n'),
    );
    const verify = `${NODE} ${quote(script)}`;
    f.scenario({
      '1-1': [
        { write: 'src/app.txt', content: 'app v2\n' },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    const result = await f.run(['--max-retries', '0', '--verify-strict', '--verify', verify]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout).toContain(
      `⟳ flaky: \`${verify}\` failed, then passed when run again (counted, not held against the attempt)`,
    );
    expect(result.stdout).not.toMatch(/attempt 1 failed/);
    expect(readFileSync(counter, 'utf8')).toBe('2');
    const report = await runCli(['report', CHANGE, '--markdown'], { cwd: f.dir, env: f.env() });
    expect(report.stdout).toContain(
      '- Flaky verify runs (failed, then passed when run again): 1 (story 1: 1)',
    );
  });

  it('--allow-test-changes is recorded: a resume without it still lets test changes through, reported', async () => {
    const f = (fixture = new RunFixture(CHANGE, stories(2), { 'test/app.test.mjs': APP_TEST }));
    f.scenario({
      '1-1': [
        { write: 'src/app.txt', content: 'app v2\n' },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
      '2-1': [{ signal: 'FAILED: not now' }],
      '2-2': [
        { write: 'test/app.test.mjs', content: APP_TEST.replace("test('", "test.skip('") },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    const first = await f.run(['--max-retries', '0', '--allow-test-changes']);
    expect(first.exitCode, first.stderr).toBe(3);
    expect((f.state().intent as { allowTestChanges?: boolean }).allowTestChanges).toBe(true);

    const resumed = await runCli(['resume', CHANGE, ...fakeAgentFlags(), '--max-retries', '1'], {
      cwd: f.dir,
      env: f.env(),
    });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(
      'attempt 2 changed tests, allowed by --allow-test-changes: test/app.test.mjs: `.skip` added',
    );
    const report = await runCli(['report', CHANGE], { cwd: f.dir, env: f.env() });
    expect(report.stdout).toContain(
      'Story 2 changed tests: test/app.test.mjs: `.skip` added (allowed by --allow-test-changes)',
    );
  });
});
