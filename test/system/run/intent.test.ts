import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../../support/cli.js';
import { quote, RunFixture, stories, type Step } from '../../run/helpers.js';

// docs/contract.md, "The run's intent": the advice a stopped run prints is run as printed (its
// placeholder filled in) and the run goes on with the agent and the verify gate it started with.

const CHANGE = 'intent';
const NODE = quote(process.execPath);
/** Passes until the agent writes broken.txt: a gate the agent's work fails. */
const GATE = `${NODE} -e "process.exit(require('fs').existsSync('broken.txt') ? 1 : 0)"`;

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

/** An attempt the gate refuses: the story's tasks ticked, COMPLETE, and broken.txt written. */
const BREAKS: Step[] = [
  { write: 'broken.txt', content: 'no\n' },
  { tick: 'all' },
  { signal: 'COMPLETE' },
];
const PASSES: Step[] = [
  { write: 'done.txt', content: 'yes\n' },
  { tick: 'all' },
  { signal: 'COMPLETE' },
];

/** The fake agent as `claude` (each result costs $0.0125): the agent kind that reports cost. */
function claudeEnv(f: RunFixture): Record<string, string> {
  return { RALPHTOOL_CLAUDE_BIN: f.agentWrapper(), FAKE_AGENT_FORMAT: 'claude', IS_SANDBOX: '1' };
}

/** The `ralphtool …` command of the line printed last that holds one, as its words. */
function printedCommand(result: CliRun): string[] {
  const commands = [...result.stdout.matchAll(/`ralphtool ([^`]+)`/g)].map((m) => m[1] ?? '');
  const resume = commands.find((c) => c.startsWith('resume '));
  expect(resume, result.stdout).toBeDefined();
  return (resume ?? '').split(' ');
}

describe('resume as printed goes on with the run’s intent', () => {
  it('after a budget stop: `resume --max-cost <more>` keeps --verify, so the gate still refuses', async () => {
    const f = (fixture = new RunFixture(CHANGE, stories(1)));
    f.scenario({ '1-1': BREAKS, '1-2': BREAKS, '1-3': BREAKS, '1-4': PASSES });
    const env = f.env(claudeEnv(f));
    const first = await runCli(
      ['run', CHANGE, '--agent', 'claude', '--verify', GATE, '--max-cost', '0.02'],
      { cwd: f.dir, env },
    );
    expect(first.exitCode, first.stderr).toBe(5);
    const advice = printedCommand(first);
    expect(advice).toEqual(['resume', CHANGE, '--max-cost', '<more>']);

    const resumed = await runCli(
      advice.map((word) => (word === '<more>' ? '1' : word)),
      { cwd: f.dir, env },
    );
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    // The attempts of the resume that broke the gate were refused by it; attempt 4 passed it.
    expect(resumed.stdout).toMatch(/attempt 2 failed \(verify-failed\)/);
    expect(resumed.stdout).toMatch(/attempt 3 failed \(verify-failed\)/);
    expect(f.invoked('1', 4)).toBe(true);
    expect(f.git('ls-tree', '--name-only', `ralph/${CHANGE}`)).not.toMatch(/broken\.txt/);
    expect(f.git('ls-tree', '--name-only', `ralph/${CHANGE}`)).toMatch(/done\.txt/);
    // Only the budget the advice raises is replaced (its own notice); the intent is as it was.
    expect(resumed.stderr.match(/ is now /g)).toEqual([' is now ']);
    expect(resumed.stderr).toContain('--max-cost is now');
  });

  it('a flag given on resume replaces its part, says so in one line, and is recorded', async () => {
    const f = (fixture = new RunFixture(CHANGE, stories(2)));
    f.scenario({
      '1-1': PASSES,
      '2-1': [{ signal: 'BLOCKED: Which colour?' }],
      '2-1#2': BREAKS,
    });
    const env = f.env(claudeEnv(f));
    const first = await runCli(
      ['run', CHANGE, '--agent', 'claude', '--verify', GATE, '--max-retries', '5'],
      { cwd: f.dir, env },
    );
    expect(first.exitCode, first.stderr).toBe(4);

    // The gate dropped on purpose: the attempt that breaks it is accepted, and that is said.
    const resumed = await runCli(['resume', CHANGE, '--answer', 'blue', '--verify', 'true'], {
      cwd: f.dir,
      env,
    });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain(
      `ralphtool: --verify is now "true" (the run had ${JSON.stringify(GATE)})`,
    );
    expect(resumed.stderr.match(/ is now /g)).toHaveLength(1);
    expect(f.state()).toMatchObject({
      intent: { agent: 'claude', verify: ['true'], maxRetries: 5 },
    });
  });
});

describe('the run’s figures cover every invocation', () => {
  it('run.finished’s durationMs adds up the run and each resume, as its cost does', async () => {
    const f = (fixture = new RunFixture(CHANGE, stories(2)));
    f.scenario({
      '1-1': [{ sleep: 1_200 }, ...PASSES],
      '2-1#1': [{ signal: 'BLOCKED: Which colour?' }],
      '2-1#2': PASSES,
    });
    const first = await runCli(['run', CHANGE, '--agent-command', f.agentWrapper(), '--json'], {
      cwd: f.dir,
      env: f.env(),
    });
    expect(first.exitCode, first.stderr).toBe(4);
    const before = first.events().find((e) => e.type === 'run.finished')?.durationMs as number;
    expect(before).toBeGreaterThanOrEqual(1_200);

    const resumed = await runCli(['resume', CHANGE, '--answer', 'blue', '--json'], {
      cwd: f.dir,
      env: f.env(),
    });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const events = resumed.events();
    const total = events.find((e) => e.type === 'run.finished')?.durationMs as number;
    // The resume's own wall time, from its events' times (they start a moment after its clock
    // does, and end a moment later: a tenth of a second either way): the total holds the run's too.
    const own = Date.parse(String(events.at(-1)?.ts)) - Date.parse(String(events[0]?.ts));
    expect(total).toBeGreaterThanOrEqual(before + own - 100);
    expect(f.state().elapsedMs).toBe(total);
  });
});
