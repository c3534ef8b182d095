import type { Command, Option } from 'commander';

// The groups `run --help` and `resume --help` show their options in (docs/contract.md, "`run
// <change>` and `resume <change>`"). One table: an option is grouped by one line here, in the
// order its group shows it; an option no line names is shown under OTHER (and the help test
// says which).

export const HELP_GROUPS = {
  agent: 'Agent:',
  judging: 'Judging an attempt:',
  review: 'The independent review:',
  sandbox: 'The sandbox:',
  limits: 'Limits and budgets:',
  question: 'Answering a question (resume):',
  several: 'Several runs and worktrees:',
  remote: 'Remote:',
  output: 'Output and notifications:',
  repository: 'Repository:',
} as const;

/** Shown last, for an option no line of OPTION_GROUPS names. */
export const OTHER_GROUP = 'Other options:';

type Group = keyof typeof HELP_GROUPS;

/** Each option's long flag and its group, in the order help shows them. */
export const OPTION_GROUPS: readonly (readonly [string, Group])[] = [
  ['--agent', 'agent'],
  ['--agent-command', 'agent'],
  ['--model', 'agent'],
  ['--fallback-agent', 'agent'],
  ['--fallback-model', 'agent'],
  ['--verify', 'judging'],
  ['--verify-timeout', 'judging'],
  ['--verify-strict', 'judging'],
  ['--allow-test-changes', 'judging'],
  ['--max-retries', 'judging'],
  ['--review', 'review'],
  ['--review-agent', 'review'],
  ['--review-command', 'review'],
  ['--max-review-rounds', 'review'],
  ['--sandbox', 'sandbox'],
  ['--no-sandbox', 'sandbox'],
  ['--allow-host', 'sandbox'],
  ['--sandbox-deny-read', 'sandbox'],
  ['--max-cost', 'limits'],
  ['--max-story-cost', 'limits'],
  ['--max-duration', 'limits'],
  ['--agent-timeout', 'limits'],
  ['--idle-timeout', 'limits'],
  ['--on-limit', 'limits'],
  ['--max-wait', 'limits'],
  ['--pause-at', 'limits'],
  ['--answer', 'question'],
  ['--answer-file', 'question'],
  ['--all', 'several'],
  ['--parallel', 'several'],
  ['--worktree', 'several'],
  ['--keep-worktree', 'several'],
  ['--resolve-conflicts', 'several'],
  ['--worktree-parent', 'several'],
  ['--push', 'remote'],
  ['--from', 'remote'],
  ['--claim-ttl', 'remote'],
  ['--include-uncommitted', 'remote'],
  ['--on-complete', 'output'],
  ['--json', 'output'],
  ['--notify', 'output'],
  ['--notify-url', 'output'],
  ['--notify-timeout', 'output'],
  ['--cwd', 'repository'],
  ['--force', 'repository'],
  ['--command-timeout', 'repository'],
];

const GROUP_ORDER = Object.keys(HELP_GROUPS) as Group[];

/**
 * Puts each of the command's options in its group, and the options in the table's order (help
 * shows the groups in the order their first option comes). Call once every option is added.
 */
export function groupOptions(cmd: Command): Command {
  const place = new Map(OPTION_GROUPS.map(([flag, group], index) => [flag, { group, index }]));
  const rank = (option: Option): number => {
    const found = option.long === undefined ? undefined : place.get(option.long);
    if (found === undefined) return Number.MAX_SAFE_INTEGER;
    return GROUP_ORDER.indexOf(found.group) * 1000 + found.index;
  };
  for (const option of cmd.options) {
    const found = option.long === undefined ? undefined : place.get(option.long);
    option.helpGroup(found === undefined ? OTHER_GROUP : HELP_GROUPS[found.group]);
  }
  // Stable: the options no line names keep the order they were added in.
  (cmd.options as Option[]).sort((a, b) => rank(a) - rank(b));
  return cmd;
}

/** The long flags of the command's options that no line of OPTION_GROUPS names. */
export function ungroupedOptions(cmd: Command): string[] {
  const named = new Set(OPTION_GROUPS.map(([flag]) => flag));
  return cmd.options.map((o) => o.long ?? o.flags).filter((flag) => !named.has(flag));
}
