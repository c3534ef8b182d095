import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runCli, type CliRun } from '../support/cli.js';
import { LiveCli } from '../support/live-cli.js';
import { FAKE_AGENT, fakeAgentFlags, quote, type Step } from '../support/fake-agent.js';
import { LoopFixture } from '../support/loop-fixture.js';

export { FAKE_AGENT, fakeAgentFlags, quote, stories } from '../support/fake-agent.js';
export type { Scenario, Step } from '../support/fake-agent.js';
export { loopTypes, ofType, single } from '../support/run-events.js';
export { eventually, processGone, procStat, sleep } from '../support/processes.js';

/** The usual successful attempt: write a file, tick every task of the story, COMPLETE. */
export function succeed(file: string, content: string): Step[] {
  return [{ write: file, content }, { tick: 'all' }, { say: 'all done' }, { signal: 'COMPLETE' }];
}

/**
 * A loop test's world for the spawned CLI: `ralphtool run` as a user runs it, with the
 * executable fake agent. (LoopHarness runs the loop in-process on the same kind of world.)
 */
export class RunFixture extends LoopFixture {
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

  /** Pid of the child a `{"hang": true, "withChild": true}` agent started. */
  childPid(storyId: string, attempt: number): number {
    const file = path.join(this.logDir, `child-${storyId}-${attempt}.pid`);
    return Number(readFileSync(file, 'utf8').trim());
  }

  /** An executable `#!/bin/sh` wrapper that runs the fake agent (for RALPHTOOL_CLAUDE_BIN). */
  agentWrapper(): string {
    const file = path.join(this.scratch, 'fake-claude');
    writeFileSync(file, `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(FAKE_AGENT)} "$@"\n`);
    chmodSync(file, 0o755);
    return file;
  }
}
