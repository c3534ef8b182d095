import { shellWord } from './shell-word.js';

/**
 * How the user can reach ralphtool and OpenSpec from their shell, so that a message never
 * tells them to run a command their shell does not have: `npx ralphtool resume x` when
 * ralphtool was run through npx (or node_modules/.bin) and is not on PATH,
 * `npx @fission-ai/openspec init` when `openspec` is not on PATH. Pure.
 */
export interface Reach {
  ralphtool: string;
  openspec: string;
  /**
   * `node <path of the script>` when ralphtool was run from a checkout (`npm run demo`, `node
   * dist/cli/main.js`) and is on no PATH, else null: the demo's hints use it, as `npm run demo`
   * is the README's first command and leaves no `ralphtool` on PATH.
   */
  byPath?: string | null;
}

/** Both on PATH (and what messages said before anyone looked). */
export const ON_PATH: Reach = { ralphtool: 'ralphtool', openspec: 'openspec' };

export interface ReachFacts {
  ralphtoolOnPath: boolean;
  /** Run through npx / npm exec, or from a node_modules folder. */
  viaPackageRunner: boolean;
  openspecOnPath: boolean;
  /** The script node runs (argv[1]), when known. */
  script?: string | null;
}

export function reachOf(facts: ReachFacts): Reach {
  return {
    // Run from a checkout (`node dist/cli/main.js`) there is no better word than the name.
    ralphtool: facts.ralphtoolOnPath || !facts.viaPackageRunner ? 'ralphtool' : 'npx ralphtool',
    openspec: facts.openspecOnPath ? 'openspec' : 'npx @fission-ai/openspec',
    byPath:
      !facts.ralphtoolOnPath && !facts.viaPackageRunner && facts.script
        ? `node ${shellWord(facts.script)}`
        : null,
  };
}

/**
 * A command is named in backticks, at the start of a line (a command to copy), or after a
 * colon (`or end it: ralphtool finish x`); "a ralphtool run branch" is prose and stays.
 */
const WHERE_COMMANDS_ARE = '(?<=^[ \\t]*(?:\\d\\. )?|`|: )';
const RALPHTOOL_COMMAND = new RegExp(
  `${WHERE_COMMANDS_ARE}ralphtool(?=(?: (?:list|show|run|resume|finish|status|demo|doctor|config|init|report|-C|--help)\\b)|\`)`,
  'gm',
);
const OPENSPEC_COMMAND = new RegExp(
  `${WHERE_COMMANDS_ARE}openspec(?= (?:init|new|list|show|validate|archive)\\b)`,
  'gm',
);

/** `text` (ralphtool's own words, never an agent's or a file's) with commands as reachable. */
export function reachable(text: string, reach: Reach): string {
  let out = text;
  if (reach.ralphtool !== 'ralphtool') {
    // A function: a path may hold `$&`, which a replacement string would expand.
    out = out.replace(RALPHTOOL_COMMAND, () => reach.ralphtool);
  }
  if (reach.openspec !== 'openspec') {
    out = out.replace(OPENSPEC_COMMAND, () => reach.openspec);
  }
  return out;
}
