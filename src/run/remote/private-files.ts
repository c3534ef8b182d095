import { UsageError } from '../../core/errors.js';
import { shellWord } from '../../core/shell-word.js';
import { engineContext, notInRepo, type RunState } from '../../checkpoint/index.js';
import { locateRepo, resolveCommit } from '../../git/repo.js';
import { filesWithSecrets, findWrittenSecret, secretsHere } from '../secrets.js';
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
export async function refusePrivateFilesToPush(where: PushWhere): Promise<void> {
  const engine = { timeoutMs: where.timeoutMs, baseEnv: where.env };
  const repo = await locateRepo({ cwd: where.specRoot, ...engine });
  if (repo === null) throw notInRepo(where.specRoot);
  const ctx = engineContext(repo, engine);
  const entries = await statusEntries(ctx, { readOnly: true });
  if (entries.length === 0) return;
  if (where.includeUncommitted) {
    // Asked for: they go with the first commit, but never one that holds a secret's value.
    const head = await resolveCommit(ctx, 'HEAD');
    const found = await findWrittenSecret(ctx, head, await secretsHere(where.env, [repo.root]));
    if (found !== null) throw secretRefusal(where.remote, found.path, found.name);
    return;
  }
  throw new UsageError(
    `--push ${where.remote} would push your uncommitted and untracked files with the run's first commit (${listed(entries.map((entry) => entry.path))}): commit what belongs to the project and put the rest aside (\`git stash --include-untracked\`), add \`--worktree\` to leave them where they are (the run works in a worktree of its own), or add \`--include-uncommitted\` to push them too (refused if one holds a secret's value)`,
  );
}

/** Where a push would go from, and whether the user asked for their uncommitted files to go. */
export interface PushWhere {
  specRoot: string;
  change: string;
  remote: string;
  timeoutMs: number;
  env: NodeJS.ProcessEnv;
  /** `--include-uncommitted`: the user's files go too, unless one holds a secret's value. */
  includeUncommitted: boolean;
}

function secretRefusal(remote: string, path: string, name: string): UsageError {
  return new UsageError(
    `--include-uncommitted: ${JSON.stringify(path)} holds the value of ${name} (a secret) and --push ${remote} would push it: take the value out of the file (read it from the environment), or put the file aside (\`git stash push --include-untracked -- ${shellWord(path)}\`)`,
  );
}

/**
 * `resume --push` of a run that pushed nowhere until now: its "initial state" commit may hold
 * the user's uncommitted files of its start, which the push of `ralph/<change>` would send.
 * Refused before anything changes (exit 2), naming them; the run goes on here without --push.
 * A run that already pushes (its remote recorded) or was fetched from one sent no such commit.
 */
export async function refusePrivateStartToPush(where: PushWhere, state: RunState): Promise<void> {
  if ((state.remote?.push ?? null) !== null) return;
  if (state.baseSha === null || state.home !== undefined) return;
  const engine = { timeoutMs: where.timeoutMs, baseEnv: where.env };
  const repo = await locateRepo({ cwd: where.specRoot, ...engine });
  if (repo === null) throw notInRepo(where.specRoot);
  const ctx = engineContext(repo, engine);
  const before = state.originalSha ?? (await emptyTree(ctx));
  const files = [...(await changedPaths(ctx, before, state.baseSha))];
  if (files.length === 0) return;
  if (where.includeUncommitted) {
    const held = await filesWithSecrets(
      ctx,
      state.baseSha,
      await secretsHere(where.env, [repo.root]),
    );
    if (held[0] !== undefined) throw secretRefusal(where.remote, held[0], 'a secret');
    return;
  }
  throw new UsageError(
    `--push ${where.remote} would push your uncommitted files of the run's start, which its first commit holds (${listed(files)}): go on here without --push (\`ralphtool resume ${where.change}\`), add \`--include-uncommitted\` to push them too (refused if one holds a secret's value), or end it (\`ralphtool finish ${where.change} --cleanup\` gives them back uncommitted) and start again with --push once they are committed or put aside`,
  );
}

/** Up to NAMED paths, quoted, then how many more. */
function listed(paths: readonly string[]): string {
  const quoted = paths.map((path) => JSON.stringify(path));
  const more = quoted.length > NAMED ? ` and ${quoted.length - NAMED} more` : '';
  return `${quoted.slice(0, NAMED).join(', ')}${more}`;
}
