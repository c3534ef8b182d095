// A verify command that ran no test is not a pass (docs/contract.md, "Tests the agent may not
// weaken"): an agent that deletes every test, or points the runner at nothing, would otherwise
// see `npm test` exit 0. Pure: read from the closing lines of what the command printed, in the
// words of the common runners. A sign that some test ran anywhere in those lines wins over
// every sign of none (a workspace without tests beside one with them is a pass).

/** How many closing lines are read: `go test ./...` prints one line per package. */
const CLOSING_LINES = 400;

/** Words of the runners saying that no test ran, each with how the reason names it. */
const NONE_RAN: readonly { says: string; pattern: RegExp }[] = [
  { says: 'vitest: "No test files found"', pattern: /No test files found/ },
  { says: 'jest: "No tests found"', pattern: /No tests found/ },
  { says: 'node --test: "tests 0"', pattern: /^[#ℹ]\s*tests\s+0\s*$/m },
  { says: 'node --test: "pass 0"', pattern: /^[#ℹ]\s*pass\s+0\s*$/m },
  { says: 'pytest: "no tests ran"', pattern: /\bno tests ran\b/ },
  { says: 'pytest: "collected 0 items"', pattern: /\bcollected 0 items\b/ },
  {
    says: 'pytest: every test skipped or deselected',
    pattern: /^=+ (?:\d+ (?:skipped|deselected|xfailed|warnings?)(?:, )?)+ in [\d.]+s/m,
  },
  { says: 'go test: "no test files"', pattern: /\[no test files\]/ },
  { says: 'go test: "no tests to run"', pattern: /\[no tests to run\]/ },
  { says: 'cargo test: "running 0 tests"', pattern: /^running 0 tests\s*$/m },
  {
    says: 'cargo test: "0 passed; 0 failed"',
    pattern: /^test result: \w+\. 0 passed; 0 failed/m,
  },
  { says: 'mocha: "0 passing"', pattern: /^\s*0 passing\b/m },
  { says: '"Ran 0 tests"', pattern: /^Ran 0 tests\b/m },
  { says: 'unittest: "NO TESTS RAN"', pattern: /\bNO TESTS RAN\b/ },
  { says: 'every test skipped', pattern: /^\s*Tests:?\s+\d+ (?:skipped|todo)\b/m },
  { says: 'maven: "Tests run: 0"', pattern: /\bTests run: 0, Failures: 0\b/ },
  { says: 'maven: "No tests to run."', pattern: /\bNo tests to run\./ },
];

/** Words of the runners saying that a test ran (passed or failed). */
const SOME_RAN: readonly RegExp[] = [
  /\b[1-9]\d* (?:passed|passing|failed|failing)\b/,
  /^[#ℹ]\s*(?:pass|fail)\s+[1-9]/m,
  /^\s*[1-9]\d* (?:pass|fail)\s*$/m,
  /^ok\s+\S+(?![^\n]*\[no tests to run\])/m,
  /^--- (?:PASS|FAIL)\b/m,
  /\bTests run: [1-9]/,
  /^Ran [1-9]\d* tests?\b/m,
];

/**
 * What says that the command ran no test (`vitest: "No test files found"`), or null when
 * nothing does or some test ran. pytest's exit code 5 is its own word for it.
 */
export function noTestsRan(
  commandLine: string,
  exitCode: number | null,
  output: string,
): string | null {
  if (exitCode === 5 && /\bpytest\b/.test(commandLine))
    return 'pytest: exit code 5 (no tests collected)';
  const closing = closingLines(output);
  if (SOME_RAN.some((pattern) => pattern.test(closing))) return null;
  return NONE_RAN.find(({ pattern }) => pattern.test(closing))?.says ?? null;
}

function closingLines(output: string): string {
  // eslint-disable-next-line no-control-regex -- colours are removed before reading
  const plain = output.replace(/\u001b\[[0-9;?]*[A-Za-z]/g, '');
  const lines = plain.split(/\r?\n/);
  return lines.slice(Math.max(0, lines.length - CLOSING_LINES)).join('\n');
}

/** The reason a verify command that ran no test fails with. */
export function noTestsReason(commandLine: string, says: string): string {
  return `\`${commandLine}\` ran no test (${says}): a verify command passes only when it runs tests and they pass`;
}
