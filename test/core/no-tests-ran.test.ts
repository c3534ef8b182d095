import { describe, expect, it } from 'vitest';
import { noTestsRan, noTestsReason } from '../../src/core/no-tests-ran.js';

// The closing lines of each runner as it prints them, with no test run and with tests run.
const NONE: [string, string, number, string][] = [
  [
    'vitest',
    'npx vitest run',
    0,
    '\n RUN  v3.2.4 /repo\n\nNo test files found, exiting with code 0\n',
  ],
  [
    'vitest, every test skipped',
    'npx vitest run',
    0,
    ' ✓ src/a.test.ts (2 tests | 2 skipped)\n\n Test Files  1 skipped (1)\n      Tests  2 skipped (2)\n   Duration  312ms\n',
  ],
  ['jest', 'npx jest', 0, 'No tests found, exiting with code 0\n'],
  [
    'jest, every test skipped',
    'npx jest',
    0,
    'Test Suites: 1 skipped, 0 of 1 total\nTests:       2 skipped, 2 total\nSnapshots:   0 total\nTime:        0.3 s\n',
  ],
  [
    'node --test (TAP)',
    'node --test',
    0,
    'TAP version 13\n1..0\n# tests 0\n# suites 0\n# pass 0\n# fail 0\n# cancelled 0\n# skipped 0\n# todo 0\n# duration_ms 45.1\n',
  ],
  [
    'node --test (spec), every test skipped',
    'node --test',
    0,
    '﹣ adds (0.4ms) # SKIP\nℹ tests 1\nℹ suites 0\nℹ pass 0\nℹ fail 0\nℹ cancelled 0\nℹ skipped 1\nℹ todo 0\n',
  ],
  ['pytest, exit 5', 'pytest -q', 5, '\nno tests ran in 0.01s\n'],
  [
    'pytest, every test skipped',
    'python -m pytest',
    0,
    '============================= test session starts ==============================\ncollected 2 items\n\ntests/test_a.py ss                                                        [100%]\n\n============================== 2 skipped in 0.02s ==============================\n',
  ],
  [
    'go test',
    'go test ./...',
    0,
    '?   \texample.com/sum\t[no test files]\n?   \texample.com/cmd\t[no test files]\n',
  ],
  [
    'go test -run nothing',
    'go test -run XYZ ./...',
    0,
    'ok  \texample.com/sum\t0.002s [no tests to run]\n',
  ],
  [
    'cargo test',
    'cargo test',
    0,
    '   Compiling sum v0.1.0\n    Finished test [unoptimized] target(s) in 0.50s\n     Running unittests src/lib.rs\n\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n\n   Doc-tests sum\n\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.00s\n',
  ],
  [
    'cargo test, every test ignored',
    'cargo test',
    0,
    'running 2 tests\ntest adds ... ignored\ntest subtracts ... ignored\n\ntest result: ok. 0 passed; 0 failed; 2 ignored; 0 measured; 0 filtered out; finished in 0.00s\n',
  ],
  ['mocha', 'npx mocha', 0, '\n\n  0 passing (1ms)\n\n'],
  [
    'unittest',
    'python -m unittest',
    0,
    '\n----------------------------------------------------------------------\nRan 0 tests in 0.000s\n\nOK\n',
  ],
  [
    'unittest 3.12',
    'python -m unittest',
    5,
    '\n----------------------------------------------------------------------\nRan 0 tests in 0.000s\n\nNO TESTS RAN\n',
  ],
  ['bun test', 'bun test', 1, 'No tests found!\n'],
  [
    'maven',
    'mvn test',
    0,
    '[INFO] Results:\n[INFO] \n[INFO] Tests run: 0, Failures: 0, Errors: 0, Skipped: 0\n[INFO] BUILD SUCCESS\n',
  ],
  [
    'colours are no disguise',
    'npx vitest run',
    0,
    '\u001b[31mNo test files found, exiting with code 0\u001b[39m\n',
  ],
];

const SOME: [string, string, number, string][] = [
  ['vitest', 'npx vitest run', 0, ' Test Files  1 passed (1)\n      Tests  2 passed (2)\n'],
  [
    'vitest, some skipped',
    'npx vitest run',
    0,
    ' Test Files  1 passed (1)\n      Tests  1 passed | 1 skipped (2)\n',
  ],
  ['jest', 'npx jest', 0, 'Tests:       1 skipped, 1 passed, 2 total\n'],
  ['node --test', 'node --test', 0, '# tests 2\n# pass 2\n# fail 0\n'],
  ['pytest', 'pytest', 0, '=== 2 passed, 1 skipped in 0.02s ===\n'],
  [
    'go test, packages with and without tests',
    'go test ./...',
    0,
    '?   \texample.com/cmd\t[no test files]\nok  \texample.com/sum\t0.002s\n',
  ],
  [
    'cargo test, doc-tests empty',
    'cargo test',
    0,
    'running 2 tests\n\ntest result: ok. 2 passed; 0 failed; 0 ignored\n\n   Doc-tests sum\n\nrunning 0 tests\n\ntest result: ok. 0 passed; 0 failed; 0 ignored\n',
  ],
  ['mocha', 'npx mocha', 0, '\n  2 passing (3ms)\n'],
  [
    'a workspace without tests beside one with them',
    'npm test --workspaces',
    0,
    'No test files found, exiting with code 0\n...\n      Tests  3 passed (3)\n',
  ],
  ['a linter', 'npm run lint', 0, '> eslint .\n\n'],
  ['a type check', 'npx tsc --noEmit', 0, ''],
  ['exit 5 of something else', 'make check', 5, 'error\n'],
];

describe('noTestsRan', () => {
  it.each(NONE)('%s: no test ran', (_runner, command, exit, output) => {
    expect(noTestsRan(command, exit, output)).not.toBeNull();
  });
  it.each(SOME)('%s: tests ran (or it is no test runner)', (_runner, command, exit, output) => {
    expect(noTestsRan(command, exit, output)).toBeNull();
  });

  it('names what it read, and the reason says what passes', () => {
    const says = noTestsRan('npx vitest run', 0, 'No test files found, exiting with code 0\n');
    expect(says).toBe('vitest: "No test files found"');
    expect(noTestsReason('npx vitest run', says ?? '')).toBe(
      '`npx vitest run` ran no test (vitest: "No test files found"): a verify command passes only when it runs tests and they pass',
    );
  });

  it('reads only the closing lines: an early "0 passing" of a long log is not its end', () => {
    const long = ['  0 passing', ...Array.from({ length: 500 }, (_, i) => `line ${i}`)].join('\n');
    expect(noTestsRan('npx mocha', 0, long)).toBeNull();
  });
});
