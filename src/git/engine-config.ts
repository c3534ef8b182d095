/**
 * `-c` settings for every git command ralphtool runs on its own behalf (checkpoints, reverts,
 * the demo's repository): the user's hooks (pre-commit, post-checkout, reference-transaction, …)
 * must not run on ralphtool's internal moves — `--no-verify` alone still runs prepare-commit-msg
 * and post-commit — and nothing may be signed (a pinentry prompt would hang), nor may git print
 * advice meant for people.
 */
export const ENGINE_CONFIG: readonly string[] = [
  'core.hooksPath=/dev/null',
  'commit.gpgsign=false',
  'advice.detachedHead=false',
];
