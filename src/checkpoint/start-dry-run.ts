import { mkdir } from 'node:fs/promises';
import { UsageError } from '../core/errors.js';
import { GitError } from '../git/git-error.js';
import { snapshotWorkTree } from '../git/snapshot.js';
import { indexFile } from './run-git.js';
import type { LocatedRun } from './run-git.js';

/**
 * "Check before acting" of the start sequence: stages the whole work tree into a copy of the
 * real index (`add -A` + `write-tree`, exactly what the "initial state" commit will need) and
 * refuses when git cannot. An unreadable file, a nested repository without a commit or a
 * failing clean filter show up here, while HEAD, the index and the files are still untouched;
 * found only after `checkout -B` they would leave the user on the run's branch.
 */
export async function assertStartSnapshot(located: LocatedRun): Promise<void> {
  const { ctx, repo, paths, change } = located;
  await mkdir(paths.dir, { recursive: true });
  try {
    await snapshotWorkTree(ctx, {
      scratchDir: paths.dir,
      startIndex: indexFile(repo),
      baseTree: null,
    });
  } catch (error) {
    // Timeouts and stops are not a verdict on the files: they keep their own message.
    if (!(error instanceof GitError) || error.timedOut || error.aborted) throw error;
    throw new UsageError(
      `git cannot commit this work tree, so the run of ${change} did not start and nothing was changed (${reason(error.stderr)}): fix or ignore that path (\`git add -A\` shows the same error), then run again`,
    );
  }
}

/** git's verdict lines (`fatal:`/`error:`), joined into one line. */
function reason(stderr: string): string {
  const lines = stderr
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => /^(fatal|error):/.test(line));
  const unique = [...new Set(lines)].slice(-3).join(' | ');
  return unique === '' ? 'git add -A failed' : unique;
}
