// The `.ralphtool/config.yaml` that `ralphtool init` writes (docs/contract.md, "`init`"): what
// `doctor` found, said as settings, each one with a comment saying why. Pure.

/** The vendor agents in the order `init` prefers them (the default agent first). */
export const INIT_AGENTS = ['claude', 'codex', 'opencode', 'gemini'] as const;
export type InitAgent = (typeof INIT_AGENTS)[number];

export interface InitFacts {
  /** The agents found on this machine, with the first line of their `--version`. */
  agents: readonly { agent: InitAgent; version: string | null }[];
  /** The verify commands inferred from the project's files, and those files. */
  verify: { commands: readonly string[]; from: readonly string[] };
}

/** The file's text: valid settings (the chosen ones) and the common others, commented out. */
export function initConfigText(facts: InitFacts): string {
  const [chosen, ...others] = facts.agents;
  const lines = [
    '# ralphtool settings of this repository, written by `ralphtool init`; commit it for the team.',
    '# Keys are the long options of `ralphtool run`; an option given on the command line wins, and',
    '# ~/.config/ralphtool/config.yaml holds your own. `ralphtool config` shows what a run uses.',
    '',
  ];
  if (chosen === undefined) {
    lines.push(
      '# No agent was found: install one (README, "Agents"), then say it here.',
      '# agent: claude',
    );
  } else {
    const found = chosen.version === null ? '' : ` (${chosen.version})`;
    const also = others.length > 0 ? ` Also found: ${others.map((o) => o.agent).join(', ')}.` : '';
    lines.push(`# The agent: ${chosen.agent}${found} was found.${also}`, `agent: ${chosen.agent}`);
  }
  lines.push("# model: <name>             # default: the agent's own", '');
  if (facts.verify.commands.length > 0) {
    lines.push(
      `# Run after each COMPLETE; a failing command fails the attempt (inferred from ${facts.verify.from.join(', ')}).`,
      'verify:',
      ...facts.verify.commands.map((command) => `  - ${JSON.stringify(command)}`),
    );
  } else {
    lines.push(
      '# Run after each COMPLETE; a failing command fails the attempt. None was inferred from the',
      "# project's files: name the command that checks this project.",
      '# verify:',
      '#   - make test',
    );
  }
  lines.push(
    '',
    '# Retries after a failed attempt (default: 3).',
    '# max-retries: 3',
    '',
    '# For runs left alone: budgets in US dollars and a wall-clock limit (none by default).',
    '# max-cost: 20',
    '# max-story-cost: 5',
    '# max-duration: 7h',
    '',
    '# Told when a run ends, a story gives up or asks, or a usage-limit wait starts or ends.',
    '# notify-url:',
    '#   - https://ntfy.sh/my-topic',
    '',
  );
  return lines.join('\n');
}
