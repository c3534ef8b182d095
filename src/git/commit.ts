import { git, gitOut } from './git.js';
import type { GitContext } from './git.js';

/** Used only when the repository has no identity of its own, so that a checkpoint never fails on it. */
export const FALLBACK_NAME = 'ralphtool';
export const FALLBACK_EMAIL = 'ralphtool@localhost';

/**
 * Settings for every commit ralphtool makes: no hooks (`--no-verify` alone still runs
 * prepare-commit-msg and post-commit) and no signing (a pinentry prompt would hang).
 */
export const COMMIT_CONFIG = ['core.hooksPath=/dev/null', 'commit.gpgsign=false'];

/**
 * Author/committer variables for one commit: empty when the repository (or the environment)
 * has an identity, the fallback identity for whatever part is missing. Config is never written.
 */
export async function fallbackIdentityEnv(ctx: GitContext): Promise<Record<string, string>> {
  const inherited = { ...process.env, ...ctx.env };
  const env: Record<string, string> = {};
  const parts = [
    {
      key: 'user.name',
      author: 'GIT_AUTHOR_NAME',
      committer: 'GIT_COMMITTER_NAME',
      value: FALLBACK_NAME,
    },
    {
      key: 'user.email',
      author: 'GIT_AUTHOR_EMAIL',
      committer: 'GIT_COMMITTER_EMAIL',
      value: FALLBACK_EMAIL,
    },
  ];
  for (const part of parts) {
    if (await configValue(ctx, part.key)) continue;
    for (const variable of [part.author, part.committer]) {
      if (!inherited[variable]) env[variable] = part.value;
    }
  }
  return env;
}

async function configValue(ctx: GitContext, key: string): Promise<string | null> {
  const result = await git(ctx, ['config', '--get', key], { allowFailure: true });
  const value = result.exitCode === 0 ? result.stdout.trim() : '';
  return value === '' ? null : value;
}

/** Stages the whole work tree (`add -A`) and commits it, even when nothing changed; returns the sha. */
export async function commitEverything(ctx: GitContext, message: string): Promise<string> {
  await git(ctx, ['add', '-A'], { context: 'could not stage the work tree' });
  const env = await fallbackIdentityEnv(ctx);
  await git(
    ctx,
    ['commit', '-q', '--allow-empty', '--no-verify', '--cleanup=verbatim', '-m', message],
    { env, config: COMMIT_CONFIG, context: `could not commit "${message}"` },
  );
  return gitOut(ctx, ['rev-parse', '--verify', 'HEAD^{commit}']);
}

/** Creates a commit object from a tree without touching HEAD, the index or any branch. */
export async function commitTree(
  ctx: GitContext,
  tree: string,
  parents: readonly string[],
  message: string,
): Promise<string> {
  const env = await fallbackIdentityEnv(ctx);
  const parentArgs = parents.flatMap((parent) => ['-p', parent]);
  return gitOut(ctx, ['commit-tree', tree, ...parentArgs, '-m', message], {
    env,
    config: COMMIT_CONFIG,
    context: 'could not save the attempt',
  });
}
