/**
 * What the scripted demo agent does for each story of the demo change. Pure data:
 * agent.ts performs the steps. Story 2's first attempt is wrong on purpose so that
 * the demo shows a failed attempt, its revert and a retry with the reason.
 */
export type DemoStep =
  | { kind: 'say'; text: string }
  | { kind: 'write'; path: string; content: string }
  /** Adds `export { name } from './module'` to src/index.js unless it is there. */
  | { kind: 'export'; name: string; module: string }
  /** Replaces `find` with `replace` in a file. */
  | { kind: 'edit'; path: string; find: string; replace: string }
  /** Runs `node --test` on the files (all when empty); if they fail, the attempt ends with FAILED giving `failure` as the reason. */
  | { kind: 'test'; files: readonly string[]; failure?: string }
  | { kind: 'tick' };

export interface DemoPlan {
  steps: DemoStep[];
}

const TEST_HEADER = `import { test } from 'node:test';
import assert from 'node:assert/strict';
`;

const TITLE_CASE = `/** Capitalises the first letter of every word. */
export function titleCase(text) {
  return text
    .split(' ')
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join(' ');
}
`;

const TITLE_CASE_TEST = `${TEST_HEADER}import { titleCase } from '../src/index.js';

test('titleCase capitalises every word', () => {
  assert.equal(titleCase('hello big world'), 'Hello Big World');
});
`;

/** The first attempt's version: splitting on single spaces miscounts. */
const COUNT_WORDS_BROKEN = `/** Number of words in the text. */
export function countWords(text) {
  return text.split(' ').length;
}
`;

const COUNT_WORDS = `/** Number of words in the text, separated by any run of whitespace. */
export function countWords(text) {
  const words = text.trim().split(/\\s+/);
  return words[0] === '' ? 0 : words.length;
}
`;

const COUNT_WORDS_TEST = `${TEST_HEADER}import { countWords } from '../src/index.js';

test('countWords ignores extra spaces', () => {
  assert.equal(countWords('  two   words '), 2);
});

test('countWords of empty text is 0', () => {
  assert.equal(countWords(''), 0);
});
`;

const TRUNCATE = `/** Text cut to at most \`max\` characters, ending with an ellipsis when cut. */
export function truncate(text, max) {
  return text.length <= max ? text : \`\${text.slice(0, max - 1)}…\`;
}
`;

const TRUNCATE_TEST = `${TEST_HEADER}import { truncate } from '../src/index.js';

test('truncate cuts long text with an ellipsis', () => {
  assert.equal(truncate('abcdefgh', 5), 'abcd…');
});

test('truncate leaves short text alone', () => {
  assert.equal(truncate('abc', 5), 'abc');
});
`;

const SLUGIFY_LINE = "- `slugify(text)`: `'Hello World'` → `'hello-world'`\n";
const README_HELPERS = `${SLUGIFY_LINE}- \`titleCase(text)\`: \`'hello big world'\` → \`'Hello Big World'\`
- \`countWords(text)\`: \`'  two   words '\` → \`2\`
- \`truncate(text, max)\`: \`truncate('abcdefgh', 5)\` → \`'abcd…'\`
`;

/** The steps for one attempt at one story; null for a story the script does not know. */
export function demoPlan(storyId: string, attempt: number): DemoPlan | null {
  switch (storyId) {
    case '1':
      return helperStory('Plan: a titleCase module, its export and a test.', {
        name: 'titleCase',
        file: 'title-case',
        source: TITLE_CASE,
        test: TITLE_CASE_TEST,
      });
    case '2':
      return attempt === 1
        ? helperStory(
            'Plan: split the text on spaces and count the pieces.',
            countWordsHelper(COUNT_WORDS_BROKEN),
            "countWords('') is 1, not 0: splitting on single spaces counts empty words",
          )
        : helperStory(
            'This time: trim the text and split on runs of whitespace; empty text has no words.',
            countWordsHelper(COUNT_WORDS),
          );
    case '3':
      return helperStory('Plan: truncate with an ellipsis, exported and tested.', {
        name: 'truncate',
        file: 'truncate',
        source: TRUNCATE,
        test: TRUNCATE_TEST,
      });
    case '4':
      return {
        steps: [
          { kind: 'say', text: 'Plan: list the three new helpers in the README.' },
          { kind: 'edit', path: 'README.md', find: SLUGIFY_LINE, replace: README_HELPERS },
          { kind: 'test', files: [] },
          { kind: 'tick' },
        ],
      };
    default:
      return null;
  }
}

interface Helper {
  name: string;
  /** Base name of src/<file>.js and test/<file>.test.js. */
  file: string;
  source: string;
  test: string;
}

function countWordsHelper(source: string): Helper {
  return { name: 'countWords', file: 'count-words', source, test: COUNT_WORDS_TEST };
}

/**
 * A story that adds one helper: its module, its export from src/index.js and its test, then
 * ticks the tasks. With `failure`, the test run is scripted to fail with that reason.
 */
function helperStory(plan: string, helper: Helper, failure?: string): DemoPlan {
  const testFile = `test/${helper.file}.test.js`;
  return {
    steps: [
      { kind: 'say', text: plan },
      { kind: 'write', path: `src/${helper.file}.js`, content: helper.source },
      { kind: 'export', name: helper.name, module: `./${helper.file}.js` },
      { kind: 'write', path: testFile, content: helper.test },
      failure === undefined
        ? { kind: 'test', files: [testFile] }
        : { kind: 'test', files: [testFile], failure },
      { kind: 'tick' },
    ],
  };
}
