import { readFileSync } from 'node:fs';
import path from 'node:path';
import { ChangeFixture } from './change-fixture.js';
import { makeChangeRepo } from './temp-repo.js';

/**
 * One loop test's world, whichever way the loop runs (the spawned CLI, or the in-process
 * harness): a repository holding change `change`, a scratch folder outside it for the
 * agent's scenario and logs, and the questions about the run's record and the agent's log.
 */
export class LoopFixture extends ChangeFixture {
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

  /** The prompt the agent received for an attempt (as the agent logged it). */
  prompt(storyId: string, attempt: number): string {
    return readFileSync(path.join(this.logDir, `prompt-${storyId}-${attempt}.md`), 'utf8');
  }

  /** The run's record, `.git/ralphtool/<change>/state.json`. */
  state(): Record<string, unknown> {
    return JSON.parse(readFileSync(path.join(this.runDir, 'state.json'), 'utf8')) as Record<
      string,
      unknown
    >;
  }
}
