import { UsageError } from '../../core/errors.js';
import { engineContext, notInRepo } from '../../checkpoint/index.js';
import { locateRepo } from '../../git/repo.js';
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
  const paths = entries.map((entry) => JSON.stringify(entry.path));
  const named = paths.slice(0, NAMED).join(', ');
  const more = paths.length > NAMED ? ` and ${paths.length - NAMED} more` : '';
  throw new UsageError(
    `--push ${where.remote} would push your uncommitted and untracked files with the run's first commit (${named}${more}): commit what belongs to the project and put the rest aside (\`git stash --include-untracked\`), or add \`--worktree\` to leave them where they are (the run works in a worktree of its own)`,
  );
}
