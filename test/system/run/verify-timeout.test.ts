import { afterEach, describe, expect, it } from 'vitest';
import { ChangeFixture } from '../../support/change-fixture.js';
import { runCli, type CliRun } from '../../support/cli.js';
import { fakeAgentFlags, quote, stories } from '../../support/fake-agent.js';
import { makeChangeRepo } from '../../support/temp-repo.js';

const CHANGE = 'verified-change';
const NODE = quote(process.execPath);

let fixture: ChangeFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

/** One story that the fake agent completes at its first attempt, run with `args`. */
function completeOnce(args: readonly string[]): Promise<CliRun> {
  fixture = new ChangeFixture(CHANGE, makeChangeRepo(CHANGE, stories(1)), 'ralphtool-verify-');
  fixture.scenario({ '1-*': [{ tick: 'all' }, { signal: 'COMPLETE' }] });
  return runCli(['run', CHANGE, ...fakeAgentFlags(), '--json', '--max-retries', '0', ...args], {
    cwd: fixture.dir,
    env: fixture.env(),
    timeoutMs: 240_000,
  });
}

describe('--verify-timeout', () => {
  it('fails the attempt when a verify command runs longer, saying it timed out', async () => {
    const forever = `${NODE} -e "setInterval(() => {}, 1000)"`;
    // Strict: the command times out before the run too, and would be tolerated (the ratchet).
    const result = await completeOnce([
      '--verify-strict',
      '--verify',
      forever,
      '--verify-timeout',
      '1s',
    ]);
    expect(result.exitCode).toBe(3);
    const failed = result.events().filter((e) => e.type === 'attempt.failed');
    expect(failed).toHaveLength(1);
    expect(failed[0]).toMatchObject({ storyId: '1', attempt: 1, kind: 'verify-failed' });
    expect(String(failed[0]?.reason)).toContain(`\`${forever}\` timed out after 1s`);
    expect(String(failed[0]?.reason)).toContain('--verify-timeout');
  });

  it('is the verify limit, not --command-timeout: a check slower than the git limit passes', async () => {
    const slow = `${NODE} -e "setTimeout(() => {}, 4000)"`;
    const result = await completeOnce([
      '--verify',
      slow,
      '--command-timeout',
      '3',
      '--verify-timeout',
      '10m',
    ]);
    expect(result.exitCode).toBe(0);
    const types = result.events().map((e) => e.type);
    expect(types).toContain('story.completed');
    expect(types).not.toContain('attempt.failed');
  });

  it('is documented in the help of run and resume, with its default', async () => {
    for (const command of ['run', 'resume']) {
      const help = await runCli([command, '--help'], { cwd: process.cwd() });
      expect(help.exitCode).toBe(0);
      expect(help.stdout).toMatch(/--verify-timeout <duration>\s+limit for each --verify command/);
      expect(help.stdout).toContain('default: 10m');
      expect(help.stdout).toMatch(/--command-timeout <seconds>\s+limit for each git command/);
      expect(help.stdout).not.toContain('openspec command');
    }
  });
});
