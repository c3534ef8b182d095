/**
 * The demo's example project: a tiny dependency-free JavaScript library and an
 * OpenSpec change of four stories to grow it. Pure data, written out by repo.ts.
 */
export const DEMO_CHANGE = 'add-text-helpers';

const PACKAGE_JSON = `${JSON.stringify(
  {
    name: 'textkit',
    version: '0.1.0',
    private: true,
    description: 'Tiny text helpers (the ralphtool demo project)',
    type: 'module',
    main: 'src/index.js',
    scripts: { test: 'node --test' },
  },
  null,
  2,
)}\n`;

const README = `# textkit

Tiny text helpers, without dependencies. This is the example project of
\`ralphtool demo\`.

## Helpers

- \`slugify(text)\`: \`'Hello World'\` → \`'hello-world'\`

Run the tests with \`npm test\` (or \`node --test\`).
`;

const SLUGIFY = `/** Lowercase words joined by dashes, for URLs and file names. */
export function slugify(text) {
  return text
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}
`;

const SLUGIFY_TEST = `import { test } from 'node:test';
import assert from 'node:assert/strict';
import { slugify } from '../src/index.js';

test('slugify joins lowercase words with dashes', () => {
  assert.equal(slugify('  Hello, World! '), 'hello-world');
});
`;

const PROPOSAL = `## Why

textkit only knows how to slugify. Its users keep writing the same three
helpers by hand: title case, word count and truncation.

## What Changes

- Add \`titleCase(text)\`, \`countWords(text)\` and \`truncate(text, max)\`,
  each in its own module, exported from \`src/index.js\` and tested.
- List the new helpers in the README.

## Impact

- New files under \`src/\` and \`test/\`; \`src/index.js\` and \`README.md\` change.
- No dependencies are added: the tests use \`node --test\`.
`;

const TASKS = `## 1. Title case

- [ ] 1.1 Add \`titleCase(text)\` in \`src/title-case.js\`
- [ ] 1.2 Export it from \`src/index.js\`
- [ ] 1.3 Test it in \`test/title-case.test.js\`

## 2. Word count

- [ ] 2.1 Add \`countWords(text)\` in \`src/count-words.js\` (empty text has 0 words)
- [ ] 2.2 Export it from \`src/index.js\`
- [ ] 2.3 Test it in \`test/count-words.test.js\`

## 3. Truncate

- [ ] 3.1 Add \`truncate(text, max)\` in \`src/truncate.js\`, ending cut text with \`…\`
- [ ] 3.2 Export it from \`src/index.js\`
- [ ] 3.3 Test it in \`test/truncate.test.js\`

## 4. Documentation

- [ ] 4.1 List the new helpers in \`README.md\`
`;

const SPEC = `## ADDED Requirements

### Requirement: Title case

The library SHALL provide \`titleCase(text)\`, which capitalises the first letter of every word.

#### Scenario: Every word is capitalised

- **WHEN** \`titleCase('hello big world')\` is called
- **THEN** it returns \`'Hello Big World'\`

### Requirement: Word count

The library SHALL provide \`countWords(text)\`, which counts the words separated by whitespace.

#### Scenario: Extra spaces are ignored

- **WHEN** \`countWords('  two   words ')\` is called
- **THEN** it returns \`2\`

#### Scenario: Empty text

- **WHEN** \`countWords('')\` is called
- **THEN** it returns \`0\`

### Requirement: Truncate

The library SHALL provide \`truncate(text, max)\`, which shortens text longer than \`max\` characters and ends it with \`…\`.

#### Scenario: Long text is cut

- **WHEN** \`truncate('abcdefgh', 5)\` is called
- **THEN** it returns \`'abcd…'\`

#### Scenario: Short text is unchanged

- **WHEN** \`truncate('abc', 5)\` is called
- **THEN** it returns \`'abc'\`
`;

/** Every file of the demo repository's first commit, by path relative to its root. */
export function demoProjectFiles(): Record<string, string> {
  const change = `openspec/changes/${DEMO_CHANGE}`;
  return {
    '.gitignore': 'node_modules/\n',
    'package.json': PACKAGE_JSON,
    'README.md': README,
    'src/index.js': "export { slugify } from './slugify.js';\n",
    'src/slugify.js': SLUGIFY,
    'test/slugify.test.js': SLUGIFY_TEST,
    'openspec/specs/.gitkeep': '',
    [`${change}/proposal.md`]: PROPOSAL,
    [`${change}/tasks.md`]: TASKS,
    [`${change}/specs/text-helpers/spec.md`]: SPEC,
  };
}
