import { quote } from '../run/helpers.js';

/**
 * A project whose tests are run by Node's own test runner: the verify command and one test of
 * the work a story must do (src/app.txt must say "app v2"), for the test gate's tests.
 */

/** Node's own test runner, finding test/*.test.mjs in the repository root. */
export const NODE_TEST = `${quote(process.execPath)} --test`;

/** A test of the work to do: src/app.txt must say "app v2". */
export const APP_TEST = [
  "import test from 'node:test';",
  "import assert from 'node:assert';",
  "import { readFileSync } from 'node:fs';",
  "test('the app is v2', () => assert.equal(readFileSync('src/app.txt', 'utf8'), 'app v2\\n'));",
  '',
].join('\n');
