import { git, gitOut } from './git.js';
import type { GitContext } from './git.js';
import { ENGINE_CONFIG } from './engine-config.js';
import { GitError } from './git-error.js';
import { headCommitOnDisk } from './on-disk.js';
import type { RepoLocation } from './repo.js';
import { readAddListing } from './snapshot.js';
import type { AddListing } from './snapshot.js';

/** Used only when the repository has no identity of its own, so that a checkpoint never fails on it. */
export const FALLBACK_NAME = 'ralphtool';
export const FALLBACK_EMAIL = 'ralphtool@localhost';

/**
 * `-c` settings for one commit: none when the repository has an identity, the fallback for
 * whatever part it lacks. Given as `-c user.name=…`, not as GIT_AUTHOR_* variables, because git
 * ranks its own GIT_AUTHOR_* / GIT_COMMITTER_* variables above any `user.*` setting: an identity
 * in the environment git runs with still wins, without ralphtool reading that environment.
 * Config is never written.
 */
export async function fallbackIdentityConfig(ctx: GitContext): Promise<readonly string[]> {
  if (ctx.identity?.settings) return ctx.identity.settings;
  const configured = await identityConfig(ctx);
  const fallback = [
    { key: 'user.name', value: FALLBACK_NAME },
    { key: 'user.email', value: FALLBACK_EMAIL },
  ];
  const settings = fallback.filter((f) => !configured.has(f.key)).map((f) => `${f.key}=${f.value}`);
  if (ctx.identity) ctx.identity.settings = settings;
  return settings;
}

/**
 * Runs a command that commits with the identity settings, found again once when git says it
 * has no identity: a memo from earlier in the run may be out of date (the global config was
 * changed meanwhile; the repository's own is put back before every sequence by the guard).
 */
async function withIdentity<T>(
  ctx: GitContext,
  command: (identity: readonly string[]) => Promise<T>,
): Promise<T> {
  const remembered = ctx.identity?.settings ?? null;
  try {
    return await command(await fallbackIdentityConfig(ctx));
  } catch (error) {
    if (remembered === null || !(error instanceof GitError) || !NO_IDENTITY.test(error.stderr)) {
      throw error;
    }
    if (ctx.identity) ctx.identity.settings = null;
    return command(await fallbackIdentityConfig(ctx));
  }
}

/** What git says when it cannot tell who commits (LC_ALL=C). */
const NO_IDENTITY = /tell me who you are|unable to auto-detect email|empty ident name/i;

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

/**
 * Stages the whole work tree (`add -A`) and commits it, even when nothing changed; returns the
 * sha. `afterStaging` may take entries back out of the index before the commit; it is told
 * what `add -A` added or changed in the index (null when git's listing could not be read).
 */
export async function commitEverything(
  ctx: GitContext,
  message: string,
  afterStaging?: (listing: AddListing | null) => Promise<void>,
  /** The repository, to read the new commit off disk instead of asking git (on-disk.ts). */
  repo?: RepoLocation,
  /**
   * Called once when `add -A` fails, before it is tried again (a nested repository without a
   * commit makes git refuse the whole add: the caller turns it into plain files).
   */
  beforeRetry?: () => Promise<void>,
): Promise<string> {
  const staged = await stageAll(ctx, beforeRetry);
  await afterStaging?.(readAddListing(staged));
  await withIdentity(ctx, (identity) =>
    git(
      ctx,
      ['commit', '-q', '--allow-empty', '--no-verify', '--cleanup=verbatim', '-m', message],
      {
        config: [...ENGINE_CONFIG, ...identity],
        context: `could not commit "${message}"`,
      },
    ),
  );
  const onDisk = repo ? await headCommitOnDisk(repo) : null;
  return onDisk ?? gitOut(ctx, ['rev-parse', '--verify', 'HEAD^{commit}']);
}

/** `add -A --verbose`'s listing; a refused add is tried once more after `beforeRetry`. */
export async function stageAll(
  ctx: GitContext,
  beforeRetry?: () => Promise<void>,
): Promise<string> {
  const args = ['add', '-A', '--verbose'];
  const context = 'could not stage the work tree';
  if (beforeRetry !== undefined) {
    const first = await git(ctx, args, { allowFailure: true });
    if (first.exitCode === 0) return first.stdout;
    await beforeRetry();
  }
  return (await git(ctx, args, { context })).stdout;
}

/** Creates a commit object from a tree without touching HEAD, the index or any branch. */
export async function commitTree(
  ctx: GitContext,
  tree: string,
  parents: readonly string[],
  message: string,
  context = 'could not save the attempt',
): Promise<string> {
  const parentArgs = parents.flatMap((parent) => ['-p', parent]);
  return withIdentity(ctx, (identity) =>
    gitOut(ctx, ['commit-tree', tree, ...parentArgs, '-m', message], {
      config: [...ENGINE_CONFIG, ...identity],
      context,
    }),
  );
}
