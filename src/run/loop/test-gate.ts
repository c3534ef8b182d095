import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import {
  describeAllowance,
  describeTestChanges,
  findTestChanges,
  isWatchedPath,
  type ChangedFileTexts,
  type TestChange,
} from '../../core/tests-weakened.js';
import { changedFilesSince } from '../../git/changed-files.js';
import { textAt } from '../../git/file-at.js';
import type { GitContext } from '../../git/git.js';
import { engineContext } from '../../checkpoint/index.js';
import type { LoopDeps, LoopSetup } from '../loop-types.js';
import type { AttemptPlan, AttemptResult } from './attempt.js';

/** Test files and configurations longer than this are not read (they are not hand-written). */
const MAX_TEXT_CHARS = 2_000_000;

/**
 * What the attempt did to the tests and to what the verify commands run
 * (docs/contract.md, "Tests the agent may not weaken"): the files it changed since its
 * checkpoint, untracked ones included, of which only the watched ones (test files, runner
 * configurations, package.json, files a verify command names) are read, before and after.
 */
export async function testChangesSince(
  ctx: GitContext,
  checkpoint: string,
  verify: readonly string[],
): Promise<TestChange[]> {
  const changed = await changedFilesSince(ctx, checkpoint);
  const files: ChangedFileTexts[] = [];
  for (const entry of changed) {
    const old = entry.from ?? entry.path;
    if (!isWatchedPath(entry.path, verify) && !isWatchedPath(old, verify)) continue;
    files.push({
      ...entry,
      before: entry.status === 'A' ? null : await textAt(ctx, checkpoint, old, MAX_TEXT_CHARS),
      after: entry.status === 'D' ? null : await workTreeText(join(ctx.cwd, entry.path)),
    });
  }
  return findTestChanges(files, verify);
}

/** A file of the work tree as text; null when it is gone, not a file, binary or too long. */
async function workTreeText(file: string): Promise<string | null> {
  const size = await stat(file).then(
    (s) => (s.isFile() ? s.size : -1),
    () => -1,
  );
  if (size < 0 || size > MAX_TEXT_CHARS) return null;
  const bytes = await readFile(file).catch(() => null);
  if (bytes === null || bytes.includes(0)) return null;
  return bytes.toString('utf8');
}

/**
 * The test gate's reader of what the attempt did to the tests, from its checkpoint (read once
 * the git directory is put back: AttemptPlan's `beforeGitReads`).
 */
export function testGateOf(deps: LoopDeps, setup: LoopSetup): Pick<AttemptPlan, 'testChanges'> {
  const checkpoint = deps.run.state.checkpointSha;
  if (checkpoint === null) return {};
  const ctx = engineContext(deps.run.repo, {
    timeoutMs: setup.options.commandTimeoutMs,
    baseEnv: setup.env,
  });
  return { testChanges: () => testChangesSince(ctx, checkpoint, setup.verify.commands) };
}

/** What the record keeps of the test gate: flakes always, test changes of an accepted attempt. */
export function testGateSeen(result: AttemptResult): { flakes: number; testChanges: string[] } {
  const changed = result.verdict.accepted ? result.testsChanged : undefined;
  return {
    flakes: result.flaky?.length ?? 0,
    testChanges:
      changed === undefined
        ? []
        : [`${describeTestChanges(changed.changes)} (${describeAllowance(changed.allowance)})`],
  };
}
