import { assertValidChangeName } from '../core/change-name.js';
import { attemptRefPrefix } from './paths.js';
import { git } from '../git/git.js';
import type { GitContext } from '../git/git.js';

/** What `run --force` saved before it reset `ralph/<change>`. */
export interface ForcedSave {
  /** `refs/ralphtool/<change>/forced/<ms>/`: everything saved, under one prefix. */
  prefix: string;
  /** `<prefix>branch`: the branch's old tip. */
  branchRef: string;
  oldSha: string;
  /** How many attempt refs of the old run were moved to `<prefix>attempts/…`. */
  attemptRefs: number;
}

/** Where a forced start saves the old branch and attempts: never under `attempts/`, so apart. */
export function forcedRefPrefix(change: string, ms: number): string {
  return `refs/ralphtool/${assertValidChangeName(change)}/forced/${String(ms)}/`;
}

/**
 * Before `--force` resets `ralph/<change>`, its tip and the old run's attempt refs are saved
 * under one prefix, in a single ref transaction: `--force` never drops a commit (the reflog is
 * no safe place, it expires and is not shared). The attempt refs are moved, so that the new
 * run's attempts do not stack on the old run's.
 */
export async function saveBeforeForce(
  ctx: GitContext,
  change: string,
  oldSha: string,
  prefix = forcedRefPrefix(change, Date.now()),
): Promise<ForcedSave> {
  const attempts = attemptRefPrefix(change);
  const out = await git(ctx, ['for-each-ref', '--format=%(objectname) %(refname)', attempts]);
  const moved = out.stdout
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => {
      const space = line.indexOf(' ');
      return { sha: line.slice(0, space), ref: line.slice(space + 1) };
    });
  const branchRef = `${prefix}branch`;
  const commands = [
    `create ${branchRef}\0${oldSha}\0`,
    ...moved.flatMap(({ sha, ref }) => [
      `create ${prefix}attempts/${ref.slice(attempts.length)}\0${sha}\0`,
      `delete ${ref}\0${sha}\0`,
    ]),
  ];
  await git(ctx, ['update-ref', '--stdin', '-z'], {
    input: commands.join(''),
    context: `could not save the old tip of ralph/${change} before --force resets it`,
  });
  return { prefix, branchRef, oldSha, attemptRefs: moved.length };
}
