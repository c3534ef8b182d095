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
  const configured = await identityConfig(ctx);
  for (const part of parts) {
    if (configured.has(part.key)) continue;
    for (const variable of [part.author, part.committer]) {
      if (!inherited[variable]) env[variable] = part.value;
    }
  }
  return env;
}

/**
 * The identity keys the repository's config sets to something non-empty, read with one git
 * process (a commit is made for every story and every failed attempt).
 */
async function identityConfig(ctx: GitContext): Promise<Set<string>> {
  const result = await git(ctx, ['config', '-z', '--get-regexp', '^user\\.(name|email)$'], {
    allowFailure: true,
  });
  const set = new Set<string>();
  if (result.exitCode !== 0) return set; // 1: none of them is set
  // With -z each entry is `key\nvalue\0`; a later entry of the same key overrides an earlier one.
  const values = new Map<string, string>();
  for (const entry of result.stdout.split('\0')) {
    if (entry === '') continue;
    const newline = entry.indexOf('\n');
    const key = (newline === -1 ? entry : entry.slice(0, newline)).toLowerCase();
    values.set(key, newline === -1 ? '' : entry.slice(newline + 1).trim());
  }
  for (const [key, value] of values) if (value !== '') set.add(key);
  return set;
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
