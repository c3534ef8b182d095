import { chmodSync, existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { runCli, type CliRun } from '../../support/cli.js';
import { ChangeFixture } from '../../support/change-fixture.js';
import {
  FAKE_AGENT,
  fakeAgentFlags,
  stories,
  type Scenario,
  type Step,
} from '../../support/fake-agent.js';
import { succeed } from '../../run/helpers.js';
import { LiveCli } from '../../support/live-cli.js';
import { makeManyChangeRepo } from '../../support/temp-repo.js';

/**
 * Several changes in one repository for `run a b c` / `resume --all`: each change its own
 * stories and its own fake-agent scenario (`{"changes": {…}}`, see the fake agent's header).
 */
export class ManyFixture extends ChangeFixture {
  readonly changes: string[];

  constructor(changes: Record<string, number>, extraFiles: Record<string, string> = {}) {
    const names = Object.keys(changes);
    const storyLists = Object.fromEntries(names.map((n) => [n, stories(changes[n] ?? 1, 1)]));
    super(names[0] ?? 'none', makeManyChangeRepo(storyLists, extraFiles), 'ralphtool-many-');
    this.changes = names;
  }

  /** One scenario per change. */
  scenarios(byChange: Record<string, Scenario>): this {
    writeFileSync(this.scenarioFile, JSON.stringify({ changes: byChange }));
    return this;
  }

  /** `ralphtool <command> <args>` with the fake agent, waiting for it to end. */
  cli(command: 'run' | 'resume', args: readonly string[], agent = true): Promise<CliRun> {
    return runCli([command, ...args, ...(agent ? fakeAgentFlags() : [])], {
      cwd: this.dir,
      env: this.env(),
      timeoutMs: 240_000,
    });
  }

  /** `ralphtool <command> <args> --json` as a live process, for signals and kill -9. */
  spawn(command: 'run' | 'resume', args: readonly string[]): LiveCli {
    return new LiveCli([command, ...args, ...fakeAgentFlags(), '--json'], this.dir, this.env());
  }

  worktree(change: string): string {
    return `${this.dir}.ralph/${change}`;
  }

  runState(change: string): Record<string, unknown> {
    const file = `${this.dir}/.git/ralphtool/${change}/state.json`;
    return JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  }

  /**
   * The environment of runs with `--agent claude`: `claude` (through RALPHTOOL_CLAUDE_BIN) is a
   * scripted executable in the scratch folder playing the scenarios in Claude Code's stream-json.
   */
  claudeEnv(): Record<string, string | undefined> {
    const file = path.join(this.scratch, 'claude');
    const script = [
      `#!${process.execPath}`,
      `process.env.FAKE_AGENT_FORMAT = 'claude';`,
      `await import(${JSON.stringify(pathToFileURL(FAKE_AGENT).href)});`,
      '',
    ].join('\n');
    writeFileSync(file, script);
    chmodSync(file, 0o755);
    return this.env({ RALPHTOOL_CLAUDE_BIN: file, IS_SANDBOX: '1' });
  }

  /** How many times the fake agent was started, per `<change>.<story>-<attempt>`. */
  starts(): Map<string, number> {
    const names = existsSync(this.logDir)
      ? readdirSync(this.logDir).filter((n) => n.startsWith('runs-'))
      : [];
    return new Map(
      names.map((n) => [
        n.slice('runs-'.length),
        readFileSync(path.join(this.logDir, n), 'utf8').length,
      ]),
    );
  }

  /** `ralphtool status --json`, parsed. */
  async statusJson(): Promise<{ runs: Record<string, unknown>[] }> {
    const result = await runCli(['status', '--json'], { cwd: this.dir, env: this.env() });
    if (result.exitCode !== 0) throw new Error(`status failed: ${result.stderr}`);
    return JSON.parse(result.stdout) as { runs: Record<string, unknown>[] };
  }
}

/** A story's attempt that takes a moment (the user keeps working meanwhile), then succeeds. */
export function slowSucceed(file: string, content: string): Step[] {
  return [{ sleep: 400 }, ...succeed(file, content)];
}
