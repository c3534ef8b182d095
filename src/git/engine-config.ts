/**
 * `-c` settings for every git command ralphtool runs on its own behalf (checkpoints, reverts,
 * the demo's repository): the user's hooks (pre-commit, post-checkout, reference-transaction, …)
 * must not run on ralphtool's internal moves — `--no-verify` alone still runs prepare-commit-msg
 * and post-commit — and nothing may be signed (a pinentry prompt would hang), nor may git print
 * advice meant for people. Settings that would make git start a program of someone else's
 * choosing (an fsmonitor hook) or prune objects behind ralphtool's back (an automatic gc
 * between a save's `write-tree` and its `update-ref`) are pinned off as well, whatever any
 * config file says.
 */
export const ENGINE_CONFIG: readonly string[] = [
  'core.hooksPath=/dev/null',
  'commit.gpgsign=false',
  'advice.detachedHead=false',
  'core.fsmonitor=false',
  'gc.auto=0',
  // Every `git commit` otherwise starts `git maintenance run --auto` after it (a process that,
  // with gc.auto=0, does nothing): a few milliseconds per checkpoint.
  'maintenance.auto=false',
];
