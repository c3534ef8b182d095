import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { LoopHarness } from '../support/loop-harness.js';
import { ofType, quote, single, stories } from './helpers.js';
import { APP_TEST, NODE_TEST } from '../support/node-test-project.js';

// The test gate on the real loop (docs/contract.md, "Tests the agent may not weaken"): real git,
// the real `node --test` as the verify command, the scripted agent playing the fake agent's steps.

const CHANGE = 'gated-change';
const NODE = quote(process.execPath);

let fixture: LoopHarness | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

function harness(storyList = stories(1), files: Record<string, string> = {}): LoopHarness {
  fixture = new LoopHarness(CHANGE, storyList, { 'test/app.test.mjs': APP_TEST, ...files });
  return fixture;
}

describe('the test gate', () => {
  it('reverts an attempt that deletes a failing test, tells the retry why, and accepts the work', async () => {
    const f = harness().scenario({
      '1-1': [{ delete: 'test/app.test.mjs' }, { tick: 'all' }, { signal: 'COMPLETE' }],
      '1-2': [
        { write: 'src/app.txt', content: 'app v2\n' },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    // Strict: the test fails before the run, and must block from the first attempt.
    const result = await f.run({
      maxRetries: 1,
      verify: [NODE_TEST],
      completion: 'keep',
      options: { verifyStrict: true },
    });
    expect(result.exitCode).toBe(0);
    const failure = single(result.events(), 'attempt.failed');
    expect(failure).toMatchObject({ attempt: 1, kind: 'tests-weakened' });
    expect(failure.reason).toContain('test/app.test.mjs deleted');
    // Judged before the verify commands: none ran on the weakened attempt.
    expect(failure.verify).toBeUndefined();
    const retry = f.prompt('1', 2);
    expect(retry).toContain('weakened the tests instead of passing them');
    expect(retry).toContain('test/app.test.mjs deleted');
    expect(f.git('show', `ralph/${CHANGE}:test/app.test.mjs`)).toBe(APP_TEST);
    expect(ofType(result.events(), 'tests.changed')).toEqual([]);
  });

  it.each([
    ['`.skip` added', APP_TEST.replace("test('the app", "test.skip('the app"), '`.skip` added'],
    ['emptied', '', 'emptied (1 test → none)'],
    ['`.only` added', `${APP_TEST}test.only('nothing', () => {});\n`, '`.only` added'],
  ])('fails an attempt whose test file is %s', async (_what, content, detail) => {
    const f = harness().scenario({
      '1-1': [{ write: 'test/app.test.mjs', content }, { tick: 'all' }, { signal: 'COMPLETE' }],
    });
    const result = await f.run({ maxRetries: 0, completion: 'keep' });
    expect(result.outcome).toBe('max-retries');
    const failure = single(result.events(), 'attempt.failed');
    expect(failure.kind).toBe('tests-weakened');
    expect(failure.reason).toContain('test/app.test.mjs');
    expect(failure.reason).toContain(detail);
  });

  it('fails an attempt that changes the test script `npm test` runs', async () => {
    const pkg = (test: string): string => `${JSON.stringify({ scripts: { test } }, null, 2)}\n`;
    const f = harness(stories(1), { 'package.json': pkg('node --test') }).scenario({
      '1-1': [
        { write: 'package.json', content: pkg('exit 0') },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    // Not run here (no npm needed): the prompt's inferred command is what the gate watches.
    const result = await f.run({ maxRetries: 0, completion: 'keep' });
    const failure = single(result.events(), 'attempt.failed');
    expect(failure.kind).toBe('tests-weakened');
    expect(failure.reason).toContain('package.json: scripts.test changed');
  });

  it('lets a story whose task asks for it remove a test, and reports it in events and the record', async () => {
    const storyList = [{ title: 'Drop the old app', tasks: ['Remove the tests of the old app'] }];
    const f = harness(storyList).scenario({
      '1-1': [{ delete: 'test/app.test.mjs' }, { tick: 'all' }, { signal: 'COMPLETE' }],
    });
    const result = await f.run({ maxRetries: 0, completion: 'keep' });
    expect(result.outcome).toBe('complete');
    const changed = single(result.events(), 'tests.changed');
    expect(changed).toMatchObject({
      storyId: '1',
      attempt: 1,
      allowedBy: 'task',
      task: { id: '1.1', description: 'Remove the tests of the old app' },
      changes: [{ path: 'test/app.test.mjs', kind: 'deleted' }],
    });
    const progress = (f.state().stories as Record<string, { testChanges?: string[] }>)['1'];
    expect(progress?.testChanges).toEqual([
      'test/app.test.mjs deleted (allowed by task 1.1 ("Remove the tests of the old app"))',
    ]);
  });

  it('lets anything through with --allow-test-changes, reported (its record in the intent: test/system/run/test-gate-cli.test.ts)', async () => {
    const f = harness().scenario({
      '1-1': [
        { write: 'test/app.test.mjs', content: APP_TEST.replace('test(', 'test.skip(') },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    const result = await f.run({
      maxRetries: 0,
      completion: 'keep',
      options: { allowTestChanges: true },
    });
    expect(result.outcome).toBe('complete');
    expect(single(result.events(), 'tests.changed')).toMatchObject({ allowedBy: 'flag' });
    expect(f.prompt('1', 1)).toContain('this run lets such changes through, and reports them');
  });

  it('accepts tests added and test bodies changed', async () => {
    const more = `${APP_TEST}test('the readme stays', () => assert.ok(readFileSync('README.md', 'utf8')));\n`;
    const f = harness().scenario({
      '1-1': [
        { write: 'src/app.txt', content: 'app v2\n' },
        { write: 'test/app.test.mjs', content: more },
        {
          write: 'test/new.test.mjs',
          content: "import test from 'node:test';\ntest('new', () => {});\n",
        },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    const result = await f.run({
      maxRetries: 0,
      verify: [NODE_TEST],
      completion: 'keep',
      options: { verifyStrict: true },
    });
    expect(ofType(result.events(), 'attempt.failed')).toEqual([]);
    expect(result.outcome).toBe('complete');
  });
});

describe('a verify command that runs no test', () => {
  it('is no pass: the attempt fails with a reason saying no test ran', async () => {
    fixture = new LoopHarness(CHANGE, stories(1));
    const f = fixture.scenario({
      '1-1': [
        { write: 'src/app.txt', content: 'app v2\n' },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    const result = await f.run({
      maxRetries: 0,
      verify: [NODE_TEST],
      completion: 'keep',
      options: { verifyStrict: true },
    });
    const failure = single(result.events(), 'attempt.failed');
    expect(failure.kind).toBe('verify-failed');
    expect(failure.reason).toContain(`\`${NODE_TEST}\` ran no test (node --test: "tests 0")`);
    expect(failure.verify).toEqual([{ command: NODE_TEST, passed: false }]);
  });

  it('fails at the baseline too, so it is tolerated until tests exist and pass', async () => {
    fixture = new LoopHarness(CHANGE, stories(1));
    const f = fixture.scenario({
      '1-1': [
        { write: 'test/app.test.mjs', content: APP_TEST },
        { write: 'src/app.txt', content: 'app v2\n' },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    const result = await f.run({ maxRetries: 0, verify: [NODE_TEST], completion: 'keep' });
    expect(single(result.events(), 'verify.baseline').results).toEqual([
      { command: NODE_TEST, passed: false },
    ]);
    expect(single(result.events(), 'story.completed').verify).toEqual([
      { command: NODE_TEST, passed: true },
    ]);
  });
});

describe('a flaky verify command', () => {
  /** A verify script failing its first `failures` runs, counting them in a file outside the repository. */
  function flakyVerify(f: LoopHarness, failures: number): { command: string; runs: () => number } {
    const counter = path.join(f.scratch, 'verify-runs');
    writeFileSync(counter, '0');
    const script = path.join(f.scratch, 'flaky.mjs');
    writeFileSync(
      script,
      [
        "import { readFileSync, writeFileSync } from 'node:fs';",
        `const file = ${JSON.stringify(counter)};`,
        "const n = Number(readFileSync(file, 'utf8')) + 1;",
        'writeFileSync(file, String(n));',
        `if (n <= ${failures}) { console.error('connection reset (run ' + n + ')'); process.exit(1); }`,
        "console.log('# tests 1\\n# pass 1\\n# fail 0');",
      ].join('\n'),
    );
    return {
      command: `${NODE} ${quote(script)}`,
      runs: () => Number(readFileSync(counter, 'utf8')),
    };
  }

  it('is run again: a pass then accepts the attempt, said and counted as a flake', async () => {
    fixture = new LoopHarness(CHANGE, stories(1));
    const f = fixture.scenario({
      '1-1': [
        { write: 'src/app.txt', content: 'app v2\n' },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    const verify = flakyVerify(f, 1);
    const result = await f.run({
      maxRetries: 0,
      verify: [verify.command],
      completion: 'keep',
      options: { verifyStrict: true },
    });
    expect(result.outcome).toBe('complete');
    expect(ofType(result.events(), 'attempt.failed')).toEqual([]);
    const flaky = single(result.events(), 'verify.flaky');
    expect(flaky).toMatchObject({ storyId: '1', attempt: 1, command: verify.command });
    expect(flaky.failure).toContain('connection reset (run 1)');
    expect(single(result.events(), 'story.completed').verify).toEqual([
      { command: verify.command, passed: true, flaky: true },
    ]);
    expect(verify.runs()).toBe(2);
    const progress = (f.state().stories as Record<string, { flakes?: number }>)['1'];
    expect(progress?.flakes).toBe(1);
  });

  it('that fails twice fails the attempt, saying it was run again', async () => {
    fixture = new LoopHarness(CHANGE, stories(1));
    const f = fixture.scenario({
      '1-1': [{ tick: 'all' }, { signal: 'COMPLETE' }],
    });
    const verify = flakyVerify(f, 2);
    const result = await f.run({
      maxRetries: 0,
      verify: [verify.command],
      completion: 'keep',
      options: { verifyStrict: true },
    });
    const failure = single(result.events(), 'attempt.failed');
    expect(failure.kind).toBe('verify-failed');
    expect(failure.reason).toContain('connection reset (run 2)');
    expect(failure.reason).toContain('(it failed when run again too)');
    expect(ofType(result.events(), 'verify.flaky')).toEqual([]);
    expect(verify.runs()).toBe(2);
  });
});
