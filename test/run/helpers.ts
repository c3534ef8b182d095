import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ChangeFixture } from '../support/change-fixture.js';
import { runCli, type CliRun } from '../support/cli.js';
import { LiveCli } from '../support/live-cli.js';
import { FAKE_AGENT, fakeAgentFlags, quote, type Step } from '../support/fake-agent.js';
import { makeChangeRepo } from '../support/temp-repo.js';

export { FAKE_AGENT, fakeAgentFlags, quote, stories } from '../support/fake-agent.js';
export type { Scenario, Step } from '../support/fake-agent.js';
export { eventually, processGone, procStat, sleep } from '../support/processes.js';
export type RunEventJson = { type: string; ts?: string; [key: string]: unknown };

/** The usual successful attempt: write a file, tick every task of the story, COMPLETE. */
export function succeed(file: string, content: string): Step[] {
  return [{ write: file, content }, { tick: 'all' }, { say: 'all done' }, { signal: 'COMPLETE' }];
}

/**
 * One test's world: a repository holding change `change`, and a scratch folder outside it
 * for the agent's scenario and logs. `remove()` deletes both.
 */
export class RunFixture extends ChangeFixture {
  constructor(
    change: string,
    storyList: readonly { title: string; tasks: readonly string[] }[],
    extraFiles: Record<string, string> = {},
  ) {
    super(change, makeChangeRepo(change, storyList, extraFiles), 'ralphtool-run-');
  }

  get learningsPath(): string {
    return path.join(this.runDir, 'learnings.md');
  }

  /** `ralphtool run <change> <args>` with the fake agent, waiting for it to end. */
  run(
    args: readonly string[],
    opts: { env?: Record<string, string | undefined>; agent?: boolean } = {},
  ): Promise<CliRun> {
    const agent = opts.agent === false ? [] : fakeAgentFlags();
    return runCli(['run', this.change, ...agent, ...args], {
      cwd: this.dir,
      env: this.env(opts.env),
      timeoutMs: 240_000,
    });
  }

  /** Starts `ralphtool run` as a live process so that a test can signal it. */
  spawn(args: readonly string[]): LiveCli {
    return new LiveCli(['run', this.change, ...fakeAgentFlags(), ...args], this.dir, this.env());
  }

  /** The prompt the agent received for an attempt (recorded by the fake agent). */
  prompt(storyId: string, attempt: number): string {
    return readFileSync(path.join(this.logDir, `prompt-${storyId}-${attempt}.md`), 'utf8');
  }

  /** Pid of the child a `{"hang": true, "withChild": true}` agent started. */
  childPid(storyId: string, attempt: number): number {
    const file = path.join(this.logDir, `child-${storyId}-${attempt}.pid`);
    return Number(readFileSync(file, 'utf8').trim());
  }

  state(): Record<string, unknown> {
    return JSON.parse(readFileSync(path.join(this.runDir, 'state.json'), 'utf8')) as Record<
      string,
      unknown
    >;
  }

  /** An executable `#!/bin/sh` wrapper that runs the fake agent (for RALPHTOOL_CLAUDE_BIN). */
  agentWrapper(): string {
    const file = path.join(this.scratch, 'fake-claude');
    writeFileSync(file, `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(FAKE_AGENT)} "$@"\n`);
    chmodSync(file, 0o755);
    return file;
  }
}

/** Event types in order, without the agent's own chatter. */
export function loopTypes(events: readonly RunEventJson[]): string[] {
  return events
    .map((e) => e.type)
    .filter((t) => t !== 'agent.message' && t !== 'agent.tool' && t !== 'agent.result');
}

export function ofType(events: readonly RunEventJson[], type: string): RunEventJson[] {
  return events.filter((e) => e.type === type);
}

/** The one event of a type; throws when there is not exactly one. */
export function single(events: readonly RunEventJson[], type: string): RunEventJson {
  const found = ofType(events, type);
  if (found.length !== 1) {
    throw new Error(`expected one ${type} event, got ${found.length}: ${JSON.stringify(events)}`);
  }
  return found[0] as RunEventJson;
}
