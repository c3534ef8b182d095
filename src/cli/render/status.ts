import { accountWindowText } from '../../format/account-window.js';
import type { RunStatus } from '../../run/status/status.js';
import type { Style } from '../../format/style.js';
import { limitName } from '../../core/limit-wait.js';
import { clockTime } from '../../format/clock.js';
import { formatAmount, formatCost, formatDuration, relativeTime } from '../../format/units.js';
import { oneLine } from '../../format/text.js';
import { blockedLine } from '../../core/question.js';
import { sandboxBlockedText } from '../../core/sandbox-blocks.js';

/** What the run spent, and of which budget: `$3.10 of $5.00 (at most $1.00 a story)`. */
function costOf(run: RunStatus): string {
  const budget = run.budget ?? null;
  if (budget === null) return formatCost(run.costUsd > 0 ? run.costUsd : null);
  const of = budget.maxCostUsd !== null ? ` of ${formatAmount(budget.maxCostUsd)}` : '';
  const perStory =
    budget.maxStoryCostUsd !== null
      ? ` (at most ${formatAmount(budget.maxStoryCostUsd)} a story)`
      : '';
  return `${formatCost(run.costUsd > 0 ? run.costUsd : null)}${of}${perStory}`;
}

/** The text of `ralphtool status`: one block per recorded run. */
export function renderStatuses(
  runs: readonly RunStatus[],
  style: Style,
  now: Date,
  notStarted: { changes: readonly string[]; askedAt: string; next: string } | null = null,
): string {
  const unstarted =
    notStarted === null
      ? ''
      : `${style.bold(notStarted.changes.join(', '))}  ${style.yellow('never started')}: asked for by a run started ${relativeTime(notStarted.askedAt, now)}, which ended before ${notStarted.changes.length === 1 ? 'it' : 'they'} began\n  next: \`${notStarted.next}\` starts ${notStarted.changes.length === 1 ? 'it' : 'them'}\n`;
  if (runs.length === 0) {
    return unstarted !== ''
      ? unstarted
      : 'No runs recorded in this repository. Start one with `ralphtool run <change>`.\n';
  }
  return `${renderRuns(runs, style, now)}${unstarted === '' ? '' : `\n${unstarted}`}`;
}

function renderRuns(runs: readonly RunStatus[], style: Style, now: Date): string {
  const blocks = runs.map((run) => {
    if (run.state === 'unreadable') {
      return [
        `${style.bold(run.change)}  ${style.red('unreadable')}: ${run.error ?? ''}`,
        `  next: ${run.next}`,
      ].join('\n');
    }
    const state =
      run.state === 'running'
        ? style.green(`running (pid ${String(run.pid)})`)
        : run.question
          ? style.yellow(blockedLine(run.question.storyId, oneLine(run.question.text)))
          : run.state === 'interrupted'
            ? style.yellow('interrupted')
            : `finished (${run.choice === 'keep' ? 'kept' : 'cleaned up'}, ${run.outcome ?? '?'})`;
    const stories = `${run.stories.done}/${run.stories.total ?? '?'} stories`;
    const current =
      run.currentStory !== null
        ? ` · story ${run.currentStory}, attempt ${String(run.currentAttempt)}`
        : '';
    return [
      `${style.bold(run.change)}  ${state}`,
      // The state keeps no "unknown": nothing recorded (Codex, a command) is "—", not $0.00.
      `  ${stories}${current} · ${costOf(run)}`,
      `  branch ${run.branch ?? '?'} (from ${run.originalBranch ?? '?'}) · started ${run.startedAt ? relativeTime(run.startedAt, now) : '?'} · updated ${run.updatedAt ? relativeTime(run.updatedAt, now) : '?'}`,
      ...(run.worktree ? [`  worktree ${run.worktree} (not this one)`] : []),
      ...homeLines(run),
      ...(run.resolve
        ? [
            `  bringing its work onto your work tree (story ${run.resolve.storyId}, --resolve-conflicts): conflicts in ${oneLine(run.resolve.files.join(', '))}`,
          ]
        : []),
      ...agentLines(run, now),
      ...sandboxLines(run),
      ...waitLines(run, now),
      ...accountLines(run, now),
      ...(run.remote ? [`  on ${run.remote.remote}: ${run.remote.said}`] : []),
      `  next: ${run.next}`,
    ].join('\n');
  });
  return `${blocks.join('\n\n')}\n`;
}

/** A run in a worktree of its own: where that worktree is, or that it is missing / removed. */
function homeLines(run: RunStatus): string[] {
  const home = run.home;
  if (home === undefined || home === null) return [];
  if (!home.missing) {
    return [
      `  in the worktree ${home.worktree} (from ${home.root})${run.state === 'finished' ? ', kept' : ''}`,
    ];
  }
  if (run.state === 'finished') return [`  in the worktree ${home.worktree} (removed)`];
  return [
    `  in the worktree ${home.worktree} (from ${home.root}): missing; \`resume\` and \`finish\` recreate it from ${run.branch ?? 'its branch'} at its last checkpoint`,
  ];
}

/**
 * `waiting for the usage limit until 15:02 (42m)` for a live run that waits; for one a crash cut
 * short during its wait, that `resume` waits out the rest.
 */
function waitLines(run: RunStatus, now: Date): string[] {
  const wait = run.wait;
  if (wait === undefined || wait === null) return [];
  const until = Date.parse(wait.until);
  const left = until - now.getTime();
  const what = limitName(wait.kind);
  if (run.state === 'running') {
    const when = `${clockTime(until, now.getTime())} (${formatDuration(Math.max(0, left))})`;
    // Waiting with another run on the account, or at --pause-at: the reason names it.
    const why = wait.source === 'account' ? [`    ${oneLine(wait.message)}`] : [];
    return [`  ⏸ waiting for ${what} until ${when}, then story ${wait.storyId} again`, ...why];
  }
  if (run.state !== 'interrupted') return [];
  return left > 0
    ? [
        `  ⏸ it was waiting for ${what} until ${clockTime(until, now.getTime())}: \`resume\` waits out the rest`,
      ]
    : [];
}

/** A sandboxed run: what its agent may reach beyond its own API (docs/sandbox.md). */
function sandboxLines(run: RunStatus): string[] {
  const sandbox = run.sandbox ?? null;
  if (sandbox === null) return [];
  const hosts = sandbox.allowHosts.length > 0 ? sandbox.allowHosts.join(', ') : 'none';
  const blocked = sandbox.blocked;
  return [
    `  sandboxed · network: the agent's API and ${hosts === 'none' ? 'nothing else' : hosts}`,
    ...(blocked.length > 0 ? [`  ⛔ ${oneLine(sandboxBlockedText(blocked))}`] : []),
  ];
}

/** The usage window of the run's account, when known (format/account-window.ts words it). */
function accountLines(run: RunStatus, now: Date): string[] {
  const account = run.account ?? null;
  if (account === null) return [];
  return [`  ${accountWindowText(account, now.getTime(), run.change)}`];
}

/**
 * The agent of the current or last attempt, with fallback agents (`agent codex · fallbacks codex
 * · claude limited until 15:02`); nothing for a run without them.
 */
function agentLines(run: RunStatus, now: Date): string[] {
  const fallback = run.fallback ?? null;
  if (fallback === null) return [];
  const agent = run.agent ?? null;
  const last =
    agent === null ? [] : [`agent ${agent.agent}${agent.model ? ` (${agent.model})` : ''}`];
  const fallbacks =
    fallback.agents.length > 0
      ? [`fallbacks ${fallback.agents.map((a) => a.agent).join(', ')}`]
      : [];
  const limited = fallback.limited.map(
    (l) => `${l.agent} limited until ${clockTime(Date.parse(l.until), now.getTime())}`,
  );
  const parts = [...last, ...fallbacks, ...limited];
  return parts.length > 0 ? [`  ${parts.join(' · ')}`] : [];
}
