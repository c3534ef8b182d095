import { commitTree } from '../git/commit.js';
import { git, gitOut, type GitContext } from '../git/git.js';
import { fetchRefs, pushRefs } from '../git/remote.js';
import { fetchedRef } from './names.js';

// The usage governor's account entry shared through a push remote (docs/contract.md, "One
// account, many runs"): `refs/ralphtool/accounts/<key>` is a commit whose tree holds
// `account.json`, the same JSON as the account's file (no secret: the key is a hash, the entry
// names changes, pids and hosts). Each write replaces it (the last write wins, as in the file).

export const ACCOUNT_FILE = 'account.json';

/** `refs/ralphtool/accounts/<key>`. */
export function accountRef(key: string): string {
  if (!/^[a-z]+-[0-9a-f]{12}$/.test(key)) throw new Error(`not an account key: ${key}`);
  return `refs/ralphtool/accounts/${key}`;
}

/** The entry's text on the remote; null when there is none or the remote cannot be read (a fetch of a missing ref fails too). */
export async function fetchAccountText(
  ctx: GitContext,
  remote: string,
  key: string,
): Promise<string | null> {
  const ref = accountRef(key);
  const local = fetchedRef(remote, ref);
  const fetched = await fetchRefs(ctx, remote, [`+${ref}:${local}`]);
  if (!fetched.ok) return null;
  const text = await git(ctx, ['cat-file', 'blob', `${local}:${ACCOUNT_FILE}`], {
    allowFailure: true,
  });
  return text.exitCode === 0 ? text.stdout : null;
}

/** Pushes `text` as the account's entry (replacing the remote's); false when the push failed. */
export async function pushAccountText(
  ctx: GitContext,
  remote: string,
  key: string,
  text: string,
): Promise<boolean> {
  const context = 'could not write the account entry';
  const blob = await gitOut(ctx, ['hash-object', '-w', '--stdin'], { input: text, context });
  const tree = await gitOut(ctx, ['mktree'], {
    input: `100644 blob ${blob}\t${ACCOUNT_FILE}\n`,
    context,
  });
  const sha = await commitTree(ctx, tree, [], `ralphtool account: ${key}`, context);
  const pushed = await pushRefs(ctx, remote, [{ src: sha, dst: accountRef(key), force: true }]);
  return pushed.ok;
}
