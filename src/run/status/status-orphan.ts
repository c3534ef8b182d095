import { isValidChangeName } from '../../core/change-name.js';
import { git } from '../../git/git.js';
import { headPosition, type RepoLocation } from '../../git/repo.js';

/** What is known of a run whose record is gone: said as an unreadable run (status.ts). */
export interface OrphanedRun {
  change: string;
  branch: string;
  originalBranch: string | null;
  next: string;
  error: string;
}

/**
 * HEAD on `ralph/<change>` with no record of that run (its folder under .git/ralphtool was
 * deleted, by hand or by an agent): said as such, with the way back to the branch the run
 * started from (read from HEAD's reflog, `checkout: moving from <it> to ralph/<change>`). The
 * run's work stays on its branch, one commit per story. Null when HEAD is elsewhere or recorded.
 */
export async function orphanedRun(
  repo: RepoLocation,
  recorded: readonly string[],
  timeoutMs: number,
  baseEnv: NodeJS.ProcessEnv,
): Promise<OrphanedRun | null> {
  const ctx = { cwd: repo.root, timeoutMs, baseEnv };
  const head = await headPosition(ctx).catch(() => null);
  if (head === null || head.kind === 'detached') return null;
  const change = head.name.startsWith('ralph/') ? head.name.slice('ralph/'.length) : null;
  if (change === null || !isValidChangeName(change) || recorded.includes(change)) return null;
  const reflog = await git(ctx, ['reflog', 'show', '-n', '500', '--format=%gs', 'HEAD', '--'], {
    allowFailure: true,
  });
  const moved = reflog.stdout
    .split('\n')
    .map((line) => /^checkout: moving from (\S+) to (\S+)$/.exec(line))
    .find((m) => m !== null && m[2] === head.name && m[1] !== head.name);
  const original = moved?.[1] ?? null;
  const back = original ?? '<your branch>';
  // The run's first commit holds the user's files as they were (uncommitted ones included).
  const log = await git(
    ctx,
    ['log', '-n', '1000', '--first-parent', '--format=%H %s', head.name, '--'],
    { allowFailure: true },
  );
  const initial =
    log.stdout
      .split('\n')
      .find((line) => line.endsWith(' initial state'))
      ?.split(' ')[0] ?? null;
  const files =
    initial === null
      ? ''
      : `, \`git checkout ${initial} -- :/\` and \`git reset -q\` (your files as they were when the run started, uncommitted ones included)`;
  return {
    change,
    branch: head.name,
    originalBranch: original,
    next: `\`git switch ${back}\`${files}; the run's work stays on ${head.name}, one commit per story`,
    error: `HEAD is on ${head.name} but ralphtool has no record of its run (its folder under .git/ralphtool is gone)`,
  };
}
