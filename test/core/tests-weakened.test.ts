import { describe, expect, it } from 'vitest';
import {
  findTestChanges,
  isWatchedPath,
  taskAllowingTestChanges,
  testChangesAllowance,
  testsWeakenedReason,
  type ChangedFileTexts,
} from '../../src/core/tests-weakened.js';
import type { Story } from '../../src/core/change.js';

/** A test file modified from `before` to `after`. */
function modified(path: string, before: string, after: string | null): ChangedFileTexts {
  return { path, status: after === null ? 'D' : 'M', before, after };
}

function kinds(files: ChangedFileTexts[], verify: string[] = []): string[] {
  return findTestChanges(files, verify).map((c) => `${c.path} ${c.kind}`);
}

const JS_BEFORE = `import { it, describe } from 'vitest';
describe('sum', () => {
  it('adds', () => { expect(sum(1, 2)).toBe(3); });
  it('subtracts', () => { expect(sum(1, -2)).toBe(-1); });
});
`;
const PY_BEFORE = `import pytest

def test_adds():
    assert add(1, 2) == 3

def test_subtracts():
    assert add(1, -2) == -1
`;
const GO_BEFORE = `package sum

import "testing"

func TestAdds(t *testing.T) {
	if Add(1, 2) != 3 { t.Fatal("wrong") }
}

func TestSubtracts(t *testing.T) {
	if Add(1, -2) != -1 { t.Fatal("wrong") }
}
`;
const RUST_BEFORE = `pub fn add(a: i32, b: i32) -> i32 { a + b }

#[cfg(test)]
mod tests {
    use super::*;
    #[test]
    fn adds() { assert_eq!(add(1, 2), 3); }
    #[test]
    fn subtracts() { assert_eq!(add(1, -2), -1); }
}
`;
const JAVA_BEFORE = `import org.junit.jupiter.api.Test;

class SumTest {
    @Test
    void adds() { assertEquals(3, Sum.add(1, 2)); }
    @Test
    void subtracts() { assertEquals(-1, Sum.add(1, -2)); }
}
`;

/** Each family: its file, and ways to weaken it that the gate must catch, by kind. */
const FAMILIES: {
  family: string;
  path: string;
  before: string;
  weakened: [string, string, 'fewer-tests' | 'skipped' | 'focused'][];
}[] = [
  {
    family: 'JS/TS',
    path: 'src/sum.test.ts',
    before: JS_BEFORE,
    weakened: [
      ['it.skip', JS_BEFORE.replace("it('adds'", "it.skip('adds'"), 'skipped'],
      ['describe.skip', JS_BEFORE.replace("describe('sum'", "describe.skip('sum'"), 'skipped'],
      ['xit', JS_BEFORE.replace("it('adds'", "xit('adds'"), 'skipped'],
      ['xdescribe', JS_BEFORE.replace("describe('sum'", "xdescribe('sum'"), 'skipped'],
      [
        'it.todo',
        JS_BEFORE.replace("it('adds', () => { expect(sum(1, 2)).toBe(3); });", "it.todo('adds');"),
        'skipped',
      ],
      ['test.skipIf', JS_BEFORE.replace("it('adds'", "it.skipIf(true)('adds'"), 'skipped'],
      [
        'this.skip()',
        JS_BEFORE.replace('{ expect(sum(1, 2))', '{ this.skip(); expect(sum(1, 2))'),
        'skipped',
      ],
      [
        'node:test skip option',
        JS_BEFORE.replace("it('adds', ()", "it('adds', { skip: true }, ()"),
        'skipped',
      ],
      ['it.only', JS_BEFORE.replace("it('subtracts'", "it.only('subtracts'"), 'focused'],
      ['fit', JS_BEFORE.replace("it('subtracts'", "fit('subtracts'"), 'focused'],
      [
        'a test removed',
        JS_BEFORE.replace("  it('adds', () => { expect(sum(1, 2)).toBe(3); });\n", ''),
        'fewer-tests',
      ],
      ['a test commented out', JS_BEFORE.replace("  it('adds'", "  // it('adds'"), 'fewer-tests'],
      ['emptied', '', 'fewer-tests'],
    ],
  },
  {
    family: 'Python',
    path: 'tests/test_sum.py',
    before: PY_BEFORE,
    weakened: [
      [
        '@pytest.mark.skip',
        PY_BEFORE.replace('def test_adds', '@pytest.mark.skip\ndef test_adds'),
        'skipped',
      ],
      [
        '@pytest.mark.skipif',
        PY_BEFORE.replace('def test_adds', '@pytest.mark.skipif(True, reason="x")\ndef test_adds'),
        'skipped',
      ],
      [
        '@pytest.mark.xfail',
        PY_BEFORE.replace('def test_adds', '@pytest.mark.xfail\ndef test_adds'),
        'skipped',
      ],
      [
        'pytest.skip(',
        PY_BEFORE.replace('    assert add(1, 2)', '    pytest.skip("later")\n    assert add(1, 2)'),
        'skipped',
      ],
      ['pytestmark', `pytestmark = pytest.mark.skip\n${PY_BEFORE}`, 'skipped'],
      [
        '@unittest.skip',
        PY_BEFORE.replace('def test_adds', '@unittest.skip("x")\ndef test_adds'),
        'skipped',
      ],
      [
        'self.skipTest',
        PY_BEFORE.replace('    assert add(1, 2)', '    self.skipTest("x")\n    assert add(1, 2)'),
        'skipped',
      ],
      [
        'a test commented out',
        PY_BEFORE.replace('def test_adds', '# def test_adds'),
        'fewer-tests',
      ],
      ['emptied', '\n', 'fewer-tests'],
    ],
  },
  {
    family: 'Go',
    path: 'sum/sum_test.go',
    before: GO_BEFORE,
    weakened: [
      [
        't.Skip(',
        GO_BEFORE.replace('\tif Add(1, 2)', '\tt.Skip("later")\n\tif Add(1, 2)'),
        'skipped',
      ],
      [
        't.Skipf(',
        GO_BEFORE.replace('\tif Add(1, 2)', '\tt.Skipf("%s", "x")\n\tif Add(1, 2)'),
        'skipped',
      ],
      [
        't.SkipNow()',
        GO_BEFORE.replace('\tif Add(1, 2)', '\tt.SkipNow()\n\tif Add(1, 2)'),
        'skipped',
      ],
      ['a build constraint', `//go:build ignore\n\n${GO_BEFORE}`, 'skipped'],
      [
        'a test renamed out of reach',
        GO_BEFORE.replace('func TestAdds', 'func testAdds'),
        'fewer-tests',
      ],
    ],
  },
  {
    family: 'Rust',
    path: 'src/sum.rs',
    before: RUST_BEFORE,
    weakened: [
      [
        '#[ignore]',
        RUST_BEFORE.replace('#[test]\n    fn adds', '#[test]\n    #[ignore]\n    fn adds'),
        'skipped',
      ],
      [
        '#[ignore = "…"]',
        RUST_BEFORE.replace(
          '#[test]\n    fn adds',
          '#[test]\n    #[ignore = "later"]\n    fn adds',
        ),
        'skipped',
      ],
      [
        'a test removed',
        RUST_BEFORE.replace('    #[test]\n    fn adds() { assert_eq!(add(1, 2), 3); }\n', ''),
        'fewer-tests',
      ],
      ['the test module removed', 'pub fn add(a: i32, b: i32) -> i32 { a + b }\n', 'fewer-tests'],
    ],
  },
  {
    family: 'Java/Kotlin',
    path: 'src/test/java/SumTest.java',
    before: JAVA_BEFORE,
    weakened: [
      [
        '@Disabled',
        JAVA_BEFORE.replace('@Test\n    void adds', '@Test\n    @Disabled\n    void adds'),
        'skipped',
      ],
      [
        '@Ignore',
        JAVA_BEFORE.replace('@Test\n    void adds', '@Test\n    @Ignore\n    void adds'),
        'skipped',
      ],
      [
        '@DisabledOnOs',
        JAVA_BEFORE.replace(
          '@Test\n    void adds',
          '@Test\n    @DisabledOnOs(OS.LINUX)\n    void adds',
        ),
        'skipped',
      ],
      [
        'assumeTrue(',
        JAVA_BEFORE.replace('{ assertEquals(3', '{ assumeTrue(false); assertEquals(3'),
        'skipped',
      ],
      ['@Test removed', JAVA_BEFORE.replace('@Test\n    void adds', 'void adds'), 'fewer-tests'],
    ],
  },
];

describe('the test gate on each language family', () => {
  for (const { family, path, before, weakened } of FAMILIES) {
    describe(family, () => {
      it(`finds ${path} deleted`, () => {
        expect(kinds([modified(path, before, null)])).toEqual([`${path} deleted`]);
      });
      it.each(weakened)('finds %s', (_name, after, kind) => {
        expect(kinds([modified(path, before, after)])).toEqual([`${path} ${kind}`]);
      });
      it("lets through tests added and a test's body changed", () => {
        const grown = `${before}\n${before}`;
        expect(kinds([modified(path, before, grown)])).toEqual([]);
        expect(kinds([modified(path, before, before.replace(/1, 2/g, '2, 1'))])).toEqual([]);
      });
    });
  }
});

describe('findTestChanges', () => {
  it('says how many tests went, and names the emptied file', () => {
    const [dropped] = findTestChanges([modified('a.test.js', JS_BEFORE, '')], []);
    expect(dropped?.detail).toBe('emptied (2 tests → none)');
    const [one] = findTestChanges(
      [modified('a.test.js', JS_BEFORE, JS_BEFORE.replace("  it('adds'", "  // it('adds'"))],
      [],
    );
    expect(one?.detail).toBe('2 tests → 1');
  });

  it('ignores a deleted helper that held no test, and files that are no tests', () => {
    expect(kinds([modified('test/helpers.ts', 'export const x = 1;\n', null)])).toEqual([]);
    expect(kinds([modified('src/sum.ts', "it('x', () => {})\n", null)])).toEqual([]);
    expect(kinds([modified('node_modules/x/a.test.js', JS_BEFORE, null)])).toEqual([]);
  });

  it('takes a test file deleted and added elsewhere under its name as moved', () => {
    const files: ChangedFileTexts[] = [
      { path: 'old/sum.test.ts', status: 'D', before: JS_BEFORE, after: null },
      { path: 'new/sum.test.ts', status: 'A', before: null, after: JS_BEFORE },
    ];
    expect(kinds(files)).toEqual([]);
    files[1] = { ...files[1]!, after: JS_BEFORE.replace("it('adds'", "it.skip('adds'") };
    expect(findTestChanges(files, [])).toEqual([
      { path: 'old/sum.test.ts → new/sum.test.ts', kind: 'skipped', detail: '`.skip` added' },
    ]);
  });

  it('compares a renamed test file with its old text, and a rename out of the test names is a deletion', () => {
    const renamed = (to: string, after: string): ChangedFileTexts => ({
      path: to,
      status: 'R',
      from: 'src/sum.test.ts',
      before: JS_BEFORE,
      after,
    });
    expect(kinds([renamed('src/sum.spec.ts', JS_BEFORE)])).toEqual([]);
    expect(kinds([renamed('src/sum.ts.bak', JS_BEFORE)])).toEqual([
      'src/sum.test.ts → src/sum.ts.bak deleted',
    ]);
  });

  it('finds `.only` in a new test file too: it skips every other test', () => {
    const added: ChangedFileTexts = {
      path: 'src/new.test.ts',
      status: 'A',
      before: null,
      after: "it.only('new', () => {});\n",
    };
    expect(kinds([added])).toEqual(['src/new.test.ts focused']);
    expect(kinds([{ ...added, after: "it.skip('new', () => {});\n" }])).toEqual([]);
  });
});

describe('what the verify commands run', () => {
  const pkg = (scripts: Record<string, string>, extra: Record<string, unknown> = {}): string =>
    JSON.stringify({ name: 'x', scripts, ...extra }, null, 2);
  const change = (path: string, before: string | null, after: string | null): ChangedFileTexts => ({
    path,
    status: before === null ? 'A' : after === null ? 'D' : 'M',
    before,
    after,
  });

  it.each([
    ['npm test', 'test'],
    ['npm t', 'test'],
    ['npm run test:unit', 'test:unit'],
    ['pnpm test', 'test'],
    ['pnpm run check', 'check'],
    ['yarn check', 'check'],
    ['bun run check', 'check'],
  ])('`%s` watches scripts.%s', (verify, script) => {
    const before = pkg({ [script]: 'vitest run', build: 'tsc' });
    const after = pkg({ [script]: 'vitest run --passWithNoTests', build: 'tsc' });
    expect(findTestChanges([change('package.json', before, after)], [verify])).toEqual([
      { path: 'package.json', kind: 'runner-changed', detail: `scripts.${script} changed` },
    ]);
  });

  it('follows the scripts a script runs, and its pre/post hooks, but not the others', () => {
    const before = pkg({
      test: 'npm run lint && npm run unit',
      unit: 'vitest run',
      lint: 'eslint .',
      build: 'tsc',
    });
    const unit = pkg({
      test: 'npm run lint && npm run unit',
      unit: 'true',
      lint: 'eslint .',
      build: 'tsc',
    });
    const hook = pkg({
      test: 'npm run lint && npm run unit',
      unit: 'vitest run',
      lint: 'eslint .',
      build: 'tsc',
      posttest: 'exit 0',
    });
    const build = pkg({
      test: 'npm run lint && npm run unit',
      unit: 'vitest run',
      lint: 'eslint .',
      build: 'tsc -b',
    });
    expect(kinds([change('package.json', before, unit)], ['npm test'])).toEqual([
      'package.json runner-changed',
    ]);
    expect(kinds([change('package.json', before, hook)], ['npm test'])).toEqual([
      'package.json runner-changed',
    ]);
    expect(kinds([change('package.json', before, build)], ['npm test'])).toEqual([]);
    // Without a verify command through npm, the scripts are nobody's judge.
    expect(kinds([change('package.json', before, unit)], [])).toEqual([]);
  });

  it('watches the runner keys of package.json', () => {
    const before = pkg({}, { jest: { testPathIgnorePatterns: [] } });
    const after = pkg({}, { jest: { testPathIgnorePatterns: ['sum'] } });
    expect(kinds([change('package.json', before, after)], [])).toEqual([
      'package.json runner-changed',
    ]);
  });

  it.each([
    ['vitest.config.ts'],
    ['packages/a/vitest.config.mts'],
    ['jest.config.js'],
    ['.mocharc.yml'],
    ['pytest.ini'],
    ['playwright.config.ts'],
  ])('any change of %s', (path) => {
    expect(kinds([change(path, 'a', 'b')])).toEqual([`${path} runner-changed`]);
    expect(kinds([change(path, null, 'b')])).toEqual([`${path} runner-changed`]);
    expect(kinds([change(path, 'a', null)])).toEqual([`${path} runner-changed`]);
  });

  it('only the test sections of pyproject.toml, tox.ini and setup.cfg', () => {
    const py = '[project]\nname = "x"\n\n[tool.pytest.ini_options]\naddopts = "-q"\n';
    expect(kinds([change('pyproject.toml', py, py.replace('name = "x"', 'name = "y"'))])).toEqual(
      [],
    );
    expect(kinds([change('pyproject.toml', py, py.replace('-q', '-q -k "not sum"'))])).toEqual([
      'pyproject.toml runner-changed',
    ]);
    const tox = '[tox]\nenvlist = py3\n[pytest]\ntestpaths = tests\n';
    expect(kinds([change('tox.ini', tox, tox.replace('py3', 'py311'))])).toEqual([]);
    expect(
      kinds([change('tox.ini', tox, tox.replace('testpaths = tests', 'testpaths = none'))]),
    ).toEqual(['tox.ini runner-changed']);
    const cfg = '[metadata]\nname = x\n[tool:pytest]\naddopts = -q\n';
    expect(kinds([change('setup.cfg', cfg, cfg.replace('-q', '--co'))])).toEqual([
      'setup.cfg runner-changed',
    ]);
  });

  it('Cargo.toml: `[[test]]` targets and `test =` settings, not dependencies', () => {
    const cargo =
      '[package]\nname = "x"\n\n[dependencies]\nserde = "1"\n\n[[test]]\nname = "it"\npath = "tests/it.rs"\n';
    expect(
      kinds([change('Cargo.toml', cargo, cargo.replace('serde = "1"', 'serde = "1.0"'))]),
    ).toEqual([]);
    expect(
      kinds([
        change(
          'Cargo.toml',
          cargo,
          cargo.replace('path = "tests/it.rs"', 'path = "tests/it.rs"\nharness = false'),
        ),
      ]),
    ).toEqual(['Cargo.toml runner-changed']);
    expect(
      kinds([
        change('Cargo.toml', cargo, cargo.replace('[lib]', '').concat('\n[lib]\ntest = false\n')),
      ]),
    ).toEqual(['Cargo.toml runner-changed']);
  });

  it('JVM build files: a setting that skips tests', () => {
    const pom = '<project><properties><java.version>17</java.version></properties></project>';
    expect(kinds([change('pom.xml', pom, pom.replace('17', '21'))])).toEqual([]);
    expect(
      kinds([
        change(
          'pom.xml',
          pom,
          pom.replace('</properties>', '<skipTests>true</skipTests></properties>'),
        ),
      ]),
    ).toEqual(['pom.xml runner-changed']);
    const gradle = 'plugins { id "java" }\n';
    expect(
      kinds([change('build.gradle.kts', gradle, `${gradle}tasks.test { enabled = false }\n`)]),
    ).toEqual(['build.gradle.kts runner-changed']);
  });

  it('a file a verify command names', () => {
    expect(
      kinds([change('scripts/check.mjs', 'a', 'b')], ['node ./scripts/check.mjs --all']),
    ).toEqual(['scripts/check.mjs runner-changed']);
    expect(kinds([change('scripts/other.mjs', 'a', 'b')], ['node ./scripts/check.mjs'])).toEqual(
      [],
    );
    expect(isWatchedPath('scripts/check.mjs', ['node scripts/check.mjs'])).toBe(true);
    expect(isWatchedPath('src/index.ts', ['npm test'])).toBe(false);
  });
});

describe('what lets test changes through', () => {
  const story = (...tasks: string[]): Story =>
    ({
      id: '2',
      title: 'Story 2',
      done: false,
      tasks: tasks.map((description, i) => ({
        id: `2.${i + 1}`,
        description,
        done: false,
        line: i + 1,
        depth: 0,
      })),
    }) as unknown as Story;

  it.each([
    ['Remove the obsolete parser tests', true],
    ['Skip the flaky network test on CI', true],
    ['Disable the e2e specs until the API is back', true],
    ['Migrate the tests from jest to vitest', true],
    ['Set up vitest with a test script', true],
    ['Add tests for the parser', false],
    ['Remove the old parser', false],
    ['Write the parser', false],
  ])('%s → %s', (task, allows) => {
    const found = taskAllowingTestChanges(story('Write the code', task));
    expect(found?.description ?? null).toBe(allows ? task : null);
  });

  it('the flag lets everything through; else the task is named', () => {
    expect(testChangesAllowance(story('Write the code'), true)).toEqual({ allowedBy: 'flag' });
    expect(testChangesAllowance(story('Write the code'), false)).toBeNull();
    expect(testChangesAllowance(story('Remove the old tests'), false)).toEqual({
      allowedBy: 'task',
      task: { id: '2.1', description: 'Remove the old tests' },
    });
  });

  it('the reason names the files and the way through', () => {
    const reason = testsWeakenedReason([
      { path: 'a.test.ts', kind: 'deleted', detail: 'deleted' },
      { path: 'b.test.ts', kind: 'skipped', detail: '`.skip` added' },
    ]);
    expect(reason).toContain('a.test.ts deleted; b.test.ts: `.skip` added');
    expect(reason).toContain('a task of the story must say so');
  });
});
