// Types of fake-agent-script.mjs (plain JavaScript, so that the executable fake agent runs
// under node without a build step).

/** One scenario action, e.g. `{ write: 'src/a.txt', content: 'a' }` (see fake-agent.mjs). */
export type Step = Record<string, unknown>;
/** `{ "<story>-<attempt>" | "<story>-*" | "*": [action…] }` */
export type Scenario = Record<string, Step[]>;

export type AgentFormat = 'plain' | 'claude' | 'codex';

/** What plays the scenario: the process of the fake agent, or an in-process stand-in. */
export interface ScriptedAgent {
  story: string;
  attempt: string;
  /** How many times this attempt has started (1 the first time; `<story>-<attempt>#<run>` keys). */
  run?: number;
  change: string;
  /** Relative paths in steps are taken from here; git steps run here. */
  cwd: string;
  /** Environment of `git` steps. */
  env: NodeJS.ProcessEnv;
  prompt: string;
  /** RALPHTOOL_PROMPT_FILE, named by the claude format's echo. */
  promptFile: string | undefined;
  /** An AgentFormat; any other name ends the script at once (exit 2), as FAKE_AGENT_FORMAT does. */
  format: string;
  /** Writes to stdout; false when the text was queued (stdout is backed up). */
  stdout(text: string): boolean;
  /** Resolves once queued stdout has drained. */
  drained(): Promise<unknown>;
  stderr(text: string): unknown;
  ignoreTerm(): void;
  sleep(ms: number): Promise<unknown>;
  /** Checked before every step: true ends the script as `interrupted`. */
  interrupted(): boolean;
}

export type ScriptEnding =
  | { end: 'done' }
  | { end: 'exit'; code: number }
  | { end: 'kill'; signal: NodeJS.Signals }
  | { end: 'hang'; withChild: boolean }
  | { end: 'interrupted' };

export function stepsFor(
  scenario: Scenario,
  story: string,
  attempt: string,
  run?: number,
): Step[] | undefined;

export function recordInvocation(
  logDir: string,
  key: string,
  invocation: {
    argv: readonly string[];
    cwd: string;
    env: NodeJS.ProcessEnv;
    prompt: string;
    promptFile: string | undefined;
  },
): number;

export function runScenario(scenario: Scenario, agent: ScriptedAgent): Promise<ScriptEnding>;

export function tickTasks(
  text: string,
  which: 'all' | 'every' | readonly string[],
  story: string,
): string;
