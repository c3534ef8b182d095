// What a test file is and what in it runs or skips tests, per language family
// (docs/contract.md, "Tests the agent may not weaken"). Pure: the gate compares the counts of a
// file as the checkpoint has it with the counts of the attempt's file. Counting by patterns is
// a heuristic, so only changes of a count are judged, never a count alone: whatever the
// patterns miss in a file is missed alike before and after.

/** The language families the gate knows. */
export type TestFamily = 'js' | 'python' | 'go' | 'rust' | 'jvm';

/** A mark that skips a test (or, for `focus`, runs some tests and so skips the rest). */
interface Mark {
  /** How the reason names it: `` `.skip` ``, `` `@Disabled` ``. */
  label: string;
  pattern: RegExp;
  /** Matched on the text with its comments: a Go build constraint is a comment. */
  inComments?: boolean;
}

interface FamilyRules {
  /** Whether a path of this family is a test file by its name or folder. */
  isTestPath: (path: string) => boolean;
  comments: 'slash' | 'hash';
  /** One match per test case the runner would collect. */
  testCase: RegExp;
  skips: readonly Mark[];
  /** Marks that run only the marked tests: added anywhere, they skip every other test. */
  focus: readonly Mark[];
}

const JS_EXT = /\.[cm]?[jt]sx?$/;
const IN_TEST_FOLDER = /(?:^|\/)(?:__tests__|tests?|spec)\//;

const JS: FamilyRules = {
  isTestPath: (path) =>
    /\.(?:test|spec)\.[cm]?[jt]sx?$/.test(path) || (JS_EXT.test(path) && IN_TEST_FOLDER.test(path)),
  comments: 'slash',
  testCase: /(?<![\w$.])[xf]?(?:it|test|specify)(?:\s*\.\s*\w+)*\s*\(/g,
  skips: [
    {
      label: '`.skip`',
      pattern: /(?<![\w$])(?:describe|it|test|suite|context|specify|bench)\s*\.\s*skip(?:If)?\b/g,
    },
    { label: '`.runIf`', pattern: /(?<![\w$])(?:describe|it|test|suite)\s*\.\s*runIf\b/g },
    { label: '`.todo`', pattern: /(?<![\w$])(?:describe|it|test)\s*\.\s*todo\b/g },
    {
      label: '`xit`/`xdescribe`',
      pattern: /(?<![\w$.])x(?:it|describe|test|context|specify)\s*\(/g,
    },
    { label: '`skip()`', pattern: /(?<![\w$])(?:this|t|ctx|context)\s*\.\s*skip\s*\(/g },
    { label: '`pending()`', pattern: /(?<![\w$.])pending\s*\(/g },
    { label: '`skip:`/`todo:` option', pattern: /(?<![\w$])(?:skip|todo)\s*:\s*(?:true|['"`])/g },
  ],
  focus: [
    {
      label: '`.only`',
      pattern: /(?<![\w$])(?:describe|it|test|suite|context|specify)\s*\.\s*only\b/g,
    },
    { label: '`fit`/`fdescribe`', pattern: /(?<![\w$.])f(?:it|describe)\s*\(/g },
    { label: '`only:` option', pattern: /(?<![\w$])only\s*:\s*true\b/g },
  ],
};

const PYTHON: FamilyRules = {
  isTestPath: (path) =>
    /(?:^|\/)(?:test_[^/]*|[^/]*_test|conftest)\.py$/.test(path) ||
    (path.endsWith('.py') && IN_TEST_FOLDER.test(path)),
  comments: 'hash',
  testCase: /^[ \t]*(?:async[ \t]+)?def[ \t]+test\w*[ \t]*\(/gm,
  skips: [
    {
      label: '`pytest.mark.skip`/`skipif`/`xfail`',
      pattern: /\bpytest\.mark\.(?:skip|skipif|xfail)\b/g,
    },
    { label: '`pytest.skip(`', pattern: /\bpytest\.(?:skip|xfail|importorskip)\s*\(/g },
    {
      label: '`unittest.skip`',
      pattern: /@(?:unittest\.)?(?:skip|skipIf|skipUnless|expectedFailure)\b/g,
    },
    { label: '`skipTest(`', pattern: /\.skipTest\s*\(|\braise\s+(?:unittest\.)?SkipTest\b/g },
    { label: '`collect_ignore`', pattern: /\bcollect_ignore(?:_glob)?\b/g },
  ],
  focus: [],
};

const GO: FamilyRules = {
  isTestPath: (path) => path.endsWith('_test.go'),
  comments: 'slash',
  testCase: /^func[ \t]+(?:Test|Fuzz)\w*[ \t]*\(\s*\w+\s+\*testing\.[TF]\b/gm,
  skips: [
    { label: '`t.Skip(`', pattern: /\.Skip(?:Now|f)?\s*\(/g },
    {
      label: 'a build constraint',
      pattern: /^\/\/(?:go:build|\s*\+build)\b/gm,
      inComments: true,
    },
  ],
  focus: [],
};

const RUST: FamilyRules = {
  // Unit tests live beside the code: any Rust file may hold tests (its counts decide).
  isTestPath: (path) => path.endsWith('.rs'),
  comments: 'slash',
  testCase: /#\[\s*(?:[\w:]+::)?(?:rs)?test\b/g,
  skips: [{ label: '`#[ignore]`', pattern: /#\[\s*ignore\b/g }],
  focus: [],
};

const JVM: FamilyRules = {
  isTestPath: (path) =>
    /\.(?:java|kt)$/.test(path) &&
    (/(?:^|\/)src\/\w*[tT]est\w*\//.test(path) ||
      /(?:^|\/)(?:Test\w*|\w+(?:Test|Tests|IT|Spec))\.(?:java|kt)$/.test(path)),
  comments: 'slash',
  testCase:
    /@(?:[\w.]+\.)?(?:Test|ParameterizedTest|RepeatedTest|TestFactory|TestTemplate)\b(?!\w)/g,
  skips: [
    { label: '`@Disabled`', pattern: /@(?:[\w.]+\.)?Disabled\w*/g },
    { label: '`@Ignore`', pattern: /@(?:[\w.]+\.)?Ignore\b/g },
    { label: '`@EnabledIf…`', pattern: /@(?:[\w.]+\.)?EnabledIf\w*/g },
    { label: 'an assumption', pattern: /(?<![\w$])assume(?:True|False|That)\s*\(/g },
  ],
  focus: [],
};

const FAMILIES: Readonly<Record<TestFamily, FamilyRules>> = {
  js: JS,
  python: PYTHON,
  go: GO,
  rust: RUST,
  jvm: JVM,
};

/** The family of a path's test files, or null when it is no test file of a known family. */
export function testFamilyOf(path: string): TestFamily | null {
  if (/(?:^|\/)node_modules\//.test(path)) return null;
  for (const [family, rules] of Object.entries(FAMILIES) as [TestFamily, FamilyRules][]) {
    if (rules.isTestPath(path)) return family;
  }
  return null;
}

/** What the gate counts in one test file's text. */
export interface TestFileCounts {
  tests: number;
  /** Each skip mark's label and how often it occurs. */
  skips: ReadonlyMap<string, number>;
  focus: ReadonlyMap<string, number>;
}

/** Counts the test cases and the skip and focus marks of a test file's text. */
export function countTestMarks(family: TestFamily, text: string): TestFileCounts {
  const rules = FAMILIES[family];
  const code = withoutComments(text, rules.comments);
  const count = (pattern: RegExp, inComments = false): number =>
    (inComments ? text : code).match(pattern)?.length ?? 0;
  const tally = (marks: readonly Mark[]): Map<string, number> =>
    new Map(marks.map((mark) => [mark.label, count(mark.pattern, mark.inComments)]));
  return { tests: count(rules.testCase), skips: tally(rules.skips), focus: tally(rules.focus) };
}

/**
 * The text with its comments blanked, so that a test commented out counts as gone. Strings are
 * not parsed: a `//` inside one blanks the rest of its line, before as after the attempt.
 */
export function withoutComments(text: string, style: 'slash' | 'hash'): string {
  if (style === 'hash') return text.replace(/#[^\n]*/g, '');
  return text
    .replace(/\/\*[\s\S]*?\*\//g, (block) => block.replace(/[^\n]/g, ' '))
    .replace(/\/\/[^\n]*/g, '');
}
