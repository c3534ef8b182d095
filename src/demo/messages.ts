/** What `ralphtool demo` tells the user before and after the run. Pure text. */

export interface DemoIntro {
  dir: string;
  change: string;
  stories: number;
  interactive: boolean;
}

export function demoIntro(intro: DemoIntro): string {
  const lines = [
    'ralphtool demo: the real loop, checkpoints and completion choice on an example project.',
    'The agent is scripted (no AI, no API key needed): it edits the files story by story,',
    'and fails one attempt on purpose so that you see the revert and the retry.',
    '',
    `Example repository: ${intro.dir}`,
    `Change: ${intro.change} (${intro.stories} stories), on branch main`,
  ];
  if (intro.interactive) {
    lines.push('', 'In the UI: Enter opens the change, r runs it, q quits.');
  }
  return `${lines.join('\n')}\n\n`;
}

/** Shown in the UI itself, whose screen hides what was printed before it opened. */
export function demoUiNote(change: string): string {
  return `Demo: Enter opens ${change}, then r runs it (a scripted agent, no AI); q quits.`;
}

export interface DemoClosing {
  dir: string;
  change: string;
  /** What became of the run: never started (quit first), stopped half-way, or finished. */
  run: 'none' | 'unfinished' | 'finished';
  /** HEAD is on `ralph/<change>` after the run (keep, or the run did not finish). */
  onRunBranch: boolean;
  /** The ref holding the failed attempt's work, when it exists. */
  savedAttemptRef: string | null;
  /** How to install Claude Code (the agents' one source, handed in: demo may not import agents). */
  installClaude: string;
}

/** Where the demo repository is, what to look at in it, and how to use ralphtool for real. */
export function demoClosing(closing: DemoClosing): string {
  const { dir, change } = closing;
  const branch = `ralph/${change}`;
  const lines = ['', `The demo repository stays in place: ${dir}`];
  if (closing.run === 'none') {
    lines.push(
      '  nothing was run in it; open the UI there to run the change:',
      `    ralphtool -C ${dir}`,
    );
  } else if (closing.run === 'unfinished') {
    lines.push(
      '  the run was stopped before it ended; it is recorded, to go on or end it:',
      `    ralphtool -C ${dir} resume ${change}`,
      `    ralphtool -C ${dir} finish ${change} --cleanup   (or --keep)`,
    );
  } else if (closing.onRunBranch) {
    lines.push(
      `  its work is on ${branch}, one commit per story:`,
      `    git -C ${dir} log --oneline ${branch}`,
    );
  } else {
    lines.push(
      '  its work is back on main as uncommitted changes (new files are untracked):',
      `    git -C ${dir} status`,
      `    git -C ${dir} diff`,
    );
  }
  if (closing.savedAttemptRef !== null) {
    lines.push(
      '  the work of the reverted attempt was saved:',
      `    git -C ${dir} show --stat ${closing.savedAttemptRef}`,
    );
  }
  lines.push(
    '  what ralphtool recorded, and the project tests:',
    `    ralphtool -C ${dir} status`,
    `    cd ${dir} && npm test`,
    `  remove it when you are done: rm -rf ${dir}`,
    '',
    'On your own project, with Claude Code:',
    `  1. ${closing.installClaude}`,
    '     and log in by running `claude` once',
    '  2. in your git repository, create an OpenSpec change with its tasks.md',
    '     (`openspec init`, then `openspec new change <name>`)',
    '  3. ralphtool doctor           checks git, claude and the repository',
    '     ralphtool run <change>     runs the loop (or just `ralphtool` for the interactive UI)',
  );
  return `${lines.join('\n')}\n`;
}
