// The guard against an attempt that makes the check pass instead of the work
// (docs/contract.md, "Tests the agent may not weaken"): from the files an attempt changed, with
// their texts at the checkpoint and after, the test files it deleted, emptied or skipped, the
// focus marks it added, and what it changed in what the verify commands run. Pure: the run
// layer reads the diff (run/loop/test-gate.ts) and decides what the findings do.

import type { Story, Task } from './change.js';
import type { TestChange, TestChangesAllowance } from './events.js';
import { countTestMarks, testFamilyOf, type TestFamily } from './test-files.js';
import { isRunnerFile, runnerChange } from './verify-runner-files.js';

/** A file the attempt changed, as the gate reads it. */
export interface ChangedFileTexts {
  path: string;
  status: 'A' | 'M' | 'D' | 'R';
  /** A rename's old path. */
  from?: string;
  /** Its text at the checkpoint (the old path's for a rename); null when it was not there. */
  before: string | null;
  /** Its text after the attempt; null when it is gone. */
  after: string | null;
}

export type { TestChange } from './events.js';

/** Whether the gate needs this changed path's texts (a test file, or one verify runs by). */
export function isWatchedPath(path: string, verify: readonly string[]): boolean {
  return testFamilyOf(path) !== null || isRunnerFile(path, verify);
}

/**
 * What the attempt did to the tests. A test file is one of a known family by its name (see
 * core/test-files.ts) that held at least one test at the checkpoint; a test file deleted, and
 * one added with the same name elsewhere, is taken as moved and compared as one file.
 */
export function findTestChanges(
  files: readonly ChangedFileTexts[],
  verify: readonly string[],
): TestChange[] {
  const found: TestChange[] = [];
  const added = files.filter((f) => f.before === null && f.after !== null);
  const movedTo = new Set<string>();
  for (const file of files) {
    const runner = isRunnerFile(file.path, verify) ? runnerChange(file, verify) : null;
    if (runner !== null) found.push({ path: file.path, kind: 'runner-changed', detail: runner });
    if (file.before === null) continue;
    const oldPath = file.from ?? file.path;
    const family = testFamilyOf(oldPath);
    if (family === null) continue;
    let after = file.after === null || testFamilyOf(file.path) !== family ? null : file.after;
    let shownPath = file.from === undefined ? file.path : `${file.from} → ${file.path}`;
    if (after === null) {
      const moved = added.find((a) => !movedTo.has(a.path) && sameName(a.path, oldPath));
      if (moved !== undefined) {
        movedTo.add(moved.path);
        after = moved.after;
        shownPath = `${oldPath} → ${moved.path}`;
      }
    }
    found.push(...compareTestFile(family, shownPath, file.before, after));
  }
  // Focus marks skip every other test, so they count in new test files too.
  for (const file of added) {
    const family = testFamilyOf(file.path);
    if (family === null || movedTo.has(file.path) || file.after === null) continue;
    found.push(...addedMarks(file.path, 'focused', countTestMarks(family, file.after).focus, null));
  }
  return found;
}

function sameName(a: string, b: string): boolean {
  return a.slice(a.lastIndexOf('/') + 1) === b.slice(b.lastIndexOf('/') + 1);
}

function compareTestFile(
  family: TestFamily,
  path: string,
  before: string,
  after: string | null,
): TestChange[] {
  const was = countTestMarks(family, before);
  if (after === null) {
    return was.tests > 0 ? [{ path, kind: 'deleted', detail: 'deleted' }] : [];
  }
  const now = countTestMarks(family, after);
  const found: TestChange[] = [];
  if (now.tests < was.tests) {
    const detail =
      now.tests === 0
        ? `emptied (${count(was.tests)} → none)`
        : `${count(was.tests)} → ${now.tests}`;
    found.push({ path, kind: 'fewer-tests', detail });
  }
  found.push(...addedMarks(path, 'skipped', now.skips, was.skips));
  found.push(...addedMarks(path, 'focused', now.focus, was.focus));
  return found;
}

function addedMarks(
  path: string,
  kind: 'skipped' | 'focused',
  now: ReadonlyMap<string, number>,
  was: ReadonlyMap<string, number> | null,
): TestChange[] {
  const labels = [...now].filter(([label, n]) => n > (was?.get(label) ?? 0)).map(([l]) => l);
  return labels.length === 0 ? [] : [{ path, kind, detail: `${labels.join(', ')} added` }];
}

function count(n: number): string {
  return n === 1 ? '1 test' : `${n} tests`;
}

/** The changes in one line: `test/a.test.ts deleted; test/b.test.ts: `.skip` added`. */
export function describeTestChanges(changes: readonly TestChange[]): string {
  return changes
    .map((c) => (c.kind === 'deleted' ? `${c.path} deleted` : `${c.path}: ${c.detail}`))
    .join('; ');
}

/** The failure reason of an attempt that weakened the tests: the files, and the way through. */
export function testsWeakenedReason(changes: readonly TestChange[]): string {
  return `the attempt weakened the tests or what the verify commands run: ${describeTestChanges(changes)}. Make the tests pass by doing the work instead; if the story really needs the tests changed, a task of the story must say so`;
}

const TEST_VERBS =
  /\b(?:remove|delete|skip|disable|ignore|drop|rename|move|replace|rewrite|migrate|configure|set[ -]?up)\w*/i;
const TEST_NOUNS =
  /\b(?:tests?|specs?|test suites?|vitest|jest|mocha|pytest|junit|cargo test|go test)\b/i;

/**
 * The task of the story that asks for changes to the tests, which lets the gate's findings
 * through: one task naming tests (`test`, `spec`, a runner's name) together with a verb of
 * changing them (remove, delete, skip, disable, ignore, drop, rename, move, replace, rewrite,
 * migrate, configure, set up). "Add tests" is no such task: adding is never refused.
 */
export function taskAllowingTestChanges(story: Story): Task | null {
  return (
    story.tasks.find((t) => TEST_VERBS.test(t.description) && TEST_NOUNS.test(t.description)) ??
    null
  );
}

/**
 * What lets the attempt's test changes through, or null when nothing does (the attempt fails
 * with kind `tests-weakened`): the run's `--allow-test-changes`, else a task of the story.
 */
export function testChangesAllowance(story: Story, flag: boolean): TestChangesAllowance | null {
  if (flag) return { allowedBy: 'flag' };
  const task = taskAllowingTestChanges(story);
  return task === null
    ? null
    : { allowedBy: 'task', task: { id: task.id, description: task.description } };
}

/** The line the progress output and the UI show for test changes let through. */
export function testsChangedLine(
  event: {
    attempt: number;
    changes: readonly TestChange[];
  } & TestChangesAllowance,
): string {
  return `attempt ${event.attempt} changed tests, ${describeAllowance(event)}: ${describeTestChanges(event.changes)}`;
}

/** The line said of a verify command that failed, then passed when run again. */
export function flakyLine(command: string): string {
  return `flaky: \`${command}\` failed, then passed when run again (counted, not held against the attempt)`;
}

/** The allowance in words, for the progress lines and the report. */
export function describeAllowance(allowance: TestChangesAllowance): string {
  return allowance.allowedBy === 'flag'
    ? 'allowed by --allow-test-changes'
    : `allowed by task ${allowance.task.id} ("${allowance.task.description}")`;
}
