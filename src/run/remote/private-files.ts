import { UsageError } from '../../core/errors.js';
import { engineContext, notInRepo, type RunState } from '../../checkpoint/index.js';
import { locateRepo } from '../../git/repo.js';
import { changedPaths, emptyTree } from '../../git/raw-files.js';
import { statusEntries } from '../../git/status.js';

/** How many of the user's files the refusal names before it only counts the rest. */
const NAMED = 5;

/**
 * `run --push` on a work tree with uncommitted or untracked files (docs/contract.md, "Every step
 * on the remote"): the start's "initial state" commit would carry them, and the push would send
 * them (an untracked `local.env` with a key in it) to the remote. Refused before anything
 * changes, here or on the remote, naming the files and the ways on. A run in a worktree of its
 * own starts from the commit alone: the user's files stay in their tree and are not asked about.
 */
export async function refusePrivateFilesToPush(where: {
  specRoot: string;
  change: string;
  remote: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
}): Promise<void> {
  const engine = { timeoutMs: where.timeoutMs, baseEnv: where.env };
  const repo = await locateRepo({ cwd: where.specRoot, ...engine });
  if (repo === null) throw notInRepo(where.specRoot);
  const entries = await statusEntries(engineContext(repo, engine), { readOnly: true });
  if (entries.length === 0) return;
  throw new UsageError(
    `--push ${where.remote} would push your uncommitted and untracked files with the run's first commit (${listed(entries.map((entry) => entry.path))}): commit what belongs to the project and put the rest aside (\`git stash --include-untracked\`), or add \`--worktree\` to leave them where they are (the run works in a worktree of its own)`,
  );
}

/**
 * `resume --push` of a run that pushed nowhere until now: its "initial state" commit may hold
 * the user's uncommitted files of its start, which the push of `ralph/<change>` would send.
 * Refused before anything changes (exit 2), naming them; the run goes on here without --push.
 * A run that already pushes (its remote recorded) or was fetched from one sent no such commit.
 */
export async function refusePrivateStartToPush(
  where: {
    specRoot: string;
    change: string;
    remote: string;
    timeoutMs: number;
    env: NodeJS.ProcessEnv;
  },
  state: RunState,
): Promise<void> {
  if ((state.remote?.push ?? null) !== null) return;
  if (state.baseSha === null || state.home !== undefined) return;
  const engine = { timeoutMs: where.timeoutMs, baseEnv: where.env };
  const repo = await locateRepo({ cwd: where.specRoot, ...engine });
  if (repo === null) throw notInRepo(where.specRoot);
  const ctx = engineContext(repo, engine);
  const before = state.originalSha ?? (await emptyTree(ctx));
  const files = [...(await changedPaths(ctx, before, state.baseSha))];
  if (files.length === 0) return;
  throw new UsageError(
    `--push ${where.remote} would push your uncommitted files of the run's start, which its first commit holds (${listed(files)}): go on here without --push (\`ralphtool resume ${where.change}\`), or end it (\`ralphtool finish ${where.change} --cleanup\` gives them back uncommitted) and start again with --push once they are committed or put aside`,
  );
}

/** Up to NAMED paths, quoted, then how many more. */
function listed(paths: readonly string[]): string {
  const quoted = paths.map((path) => JSON.stringify(path));
  const more = quoted.length > NAMED ? ` and ${quoted.length - NAMED} more` : '';
  return `${quoted.slice(0, NAMED).join(', ')}${more}`;
}
