import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH, runCli, type CliRun } from '../../support/cli.js';
import { TmuxSession, tmuxAvailable } from '../../support/tmux.js';
import {
  fakeAgentFlags,
  ofType,
  RunFixture,
  single,
  stories,
  succeed,
  type Step,
} from '../../run/helpers.js';

// docs/contract.md, "Budgets": `ralphtool run|resume` as a user runs them, with the executable
// fake agent as Claude Code (its results report `total_cost_usd`; it honours --max-budget-usd
// as Claude Code does). Exit codes, the record across invocations, the argument Claude Code gets.

const CHANGE = 'budget-cli';

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

type Event = { type: string; [key: string]: unknown };

function events(result: CliRun): Event[] {
  return result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Event);
}

/** `ralphtool run|resume <change> --agent claude --on-complete keep` with the fake agent as claude. */
function asClaude(
  f: RunFixture,
  command: 'run' | 'resume',
  args: readonly string[],
): Promise<CliRun> {
  return runCli([command, CHANGE, '--agent', 'claude', '--on-complete', 'keep', ...args], {
    cwd: f.dir,
    env: claudeEnv(f),
    timeoutMs: 240_000,
  });
}

function claudeEnv(f: RunFixture): Record<string, string | undefined> {
  return f.env({
    RALPHTOOL_CLAUDE_BIN: f.agentWrapper(),
    FAKE_AGENT_FORMAT: 'claude',
    IS_SANDBOX: '1',
  });
}

/** The arguments Claude Code got for one attempt (the fake agent logs its argv). */
function argvOf(f: RunFixture, storyId: string, attempt: number): string[] {
  const file = path.join(f.logDir, `invocation-${storyId}-${attempt}.json`);
  return (JSON.parse(readFileSync(file, 'utf8')) as { argv: string[] }).argv;
}

function budgetArg(argv: readonly string[]): string | null {
  const at = argv.indexOf('--max-budget-usd');
  return at === -1 ? null : (argv[at + 1] ?? null);
}

const costing = (usd: number, file: string): Step[] => [{ cost: usd }, ...succeed(file, 'x\n')];

describe('--max-cost with the real CLI', () => {
  it('exits 5 with outcome budget, stays resumable, and resume keeps the budget until --max-cost raises it', async () => {
    fixture = new RunFixture(CHANGE, stories(3)).scenario({
      '1-1': costing(0.25, 'src/one.txt'),
      '2-1': costing(0.15, 'src/two.txt'),
      '3-1': costing(0.1, 'src/three.txt'),
    });
    const f = fixture;
    const first = await asClaude(f, 'run', ['--json', '--max-cost', '0.40']);
    expect(first.exitCode, first.stderr).toBe(5);
    const list = events(first);
    expect(single(list, 'limit.reached')).toMatchObject({
      limit: 'max-cost',
      message: 'spent $0.40 of --max-cost $0.40',
    });
    expect(single(list, 'run.finished')).toMatchObject({ outcome: 'budget', choice: 'keep' });
    // Claude Code got what was left of the budget each time.
    expect(budgetArg(argvOf(f, '1', 1))).toBe('0.4000');
    expect(budgetArg(argvOf(f, '2', 1))).toBe('0.1500');
    expect(f.state()).toMatchObject({
      status: 'active',
      outcome: 'budget',
      budget: { maxCostUsd: 0.4, maxStoryCostUsd: null },
    });

    // A resume without the flag keeps the recorded budget: it stops again at once.
    const again = await asClaude(f, 'resume', ['--json']);
    expect(again.exitCode, again.stderr).toBe(5);
    expect(ofType(events(again), 'story.started')).toEqual([]);
    expect(single(events(again), 'limit.reached')).toMatchObject({ limit: 'max-cost' });
    expect(f.invoked('3', 1)).toBe(false);

    // Raised: the notice says so, story 3 runs with the new remainder, the run completes.
    const raised = await asClaude(f, 'resume', ['--json', '--max-cost', '1']);
    expect(raised.exitCode, raised.stderr).toBe(0);
    expect(raised.stderr).toContain(
      'ralphtool: --max-cost is now $1.00 (the run had $0.40; $0.40 spent so far)',
    );
    expect(budgetArg(argvOf(f, '3', 1))).toBe('0.6000');
    expect(f.state()).toMatchObject({ budget: { maxCostUsd: 1 } });
  });

  it('says why it stopped and how to go on, in the progress lines and in status', async () => {
    fixture = new RunFixture(CHANGE, stories(2)).scenario({
      '1-*': [{ cost: 0.3 }, { signal: 'FAILED: not yet' }],
    });
    const f = fixture;
    const run = await asClaude(f, 'run', ['--max-story-cost', '0.6', '--max-cost', '5']);
    expect(run.exitCode, run.stderr).toBe(5);
    expect(run.stdout).toContain('■ story 1 spent $0.60 of --max-story-cost $0.60');
    expect(run.stdout).toMatch(/stopped: the budget is spent · 0\/2 stories · \$0\.60/);
    expect(run.stdout).toContain(`\`ralphtool resume ${CHANGE} --max-story-cost <more>\``);

    const status = await runCli(['status'], { cwd: f.dir, env: f.env() });
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toContain('$0.60 of $5.00 (at most $0.60 a story)');
    expect(status.stdout).toContain(
      `next: the budget is spent: ralphtool resume ${CHANGE} --max-story-cost <more>`,
    );
    const json = await runCli(['status', '--json'], { cwd: f.dir, env: f.env() });
    const [entry] = (JSON.parse(json.stdout) as { runs: Record<string, unknown>[] }).runs;
    expect(entry).toMatchObject({
      outcome: 'budget',
      costUsd: 0.6,
      budget: { maxCostUsd: 5, maxStoryCostUsd: 0.6 },
    });
  });

  it('gives Claude Code no --max-budget-usd without a budget', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario({ '1-1': succeed('src/a.txt', 'a\n') });
    const f = fixture;
    const run = await asClaude(f, 'run', ['--json']);
    expect(run.exitCode, run.stderr).toBe(0);
    expect(budgetArg(argvOf(f, '1', 1))).toBeNull();
    expect(argvOf(f, '1', 1)).toEqual([
      '-p',
      '--output-format',
      'stream-json',
      '--verbose',
      '--dangerously-skip-permissions',
    ]);
  });
});

describe('--max-duration with the real CLI', () => {
  it('lets the running attempt finish, then ends time-limit at the next boundary (exit 5); resume carries on', async () => {
    fixture = new RunFixture(CHANGE, stories(2)).scenario({
      // Longer than --max-duration: the deadline has passed when this attempt ends.
      '1-1': [{ sleep: 1500 }, ...succeed('src/one.txt', 'one\n')],
      '2-1': succeed('src/two.txt', 'two\n'),
    });
    const f = fixture;
    const run = await f.run(['--json', '--on-complete', 'keep', '--max-duration', '1s']);
    expect(run.exitCode, run.stderr).toBe(5);
    const list = events(run);
    // Not killed at the deadline: story 1 was accepted.
    expect(single(list, 'story.completed')).toMatchObject({ storyId: '1' });
    expect(ofType(list, 'story.started').map((e) => e.storyId)).toEqual(['1']);
    const reached = single(list, 'limit.reached');
    expect(reached.limit).toBe('max-duration');
    expect(reached.message).toMatch(/^ran \S+ of --max-duration 1s$/);
    expect(single(list, 'run.finished')).toMatchObject({ outcome: 'time-limit', choice: 'keep' });
    expect(f.state()).toMatchObject({ status: 'active', outcome: 'time-limit' });

    // --max-duration is this invocation's: a resume without it finishes the run.
    const resumed = await runCli(['resume', CHANGE, ...fakeAgentFlags(), '--json'], {
      cwd: f.dir,
      env: f.env(),
      timeoutMs: 240_000,
    });
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(f.read('src/two.txt')).toBe('two\n');
  });
});

// The run is parked at the completion question (a real terminal, --on-complete ask) after its
// budget stopped it, and ralphtool dies there: nothing of the budget may be lost.
describe.skipIf(!tmuxAvailable())('kill -9 during a budget stop', () => {
  let session: TmuxSession | undefined;
  afterEach(() => session?.kill());

  it('at the completion question: resume still knows the budget and stops again at once; --max-cost more carries on', async () => {
    fixture = new RunFixture(CHANGE, stories(2)).scenario({
      '1-1': costing(0.2, 'src/one.txt'),
      '2-1': costing(0.1, 'src/two.txt'),
    });
    const f = fixture;
    const env: Record<string, string> = { NO_COLOR: '1' };
    for (const [key, value] of Object.entries(claudeEnv(f)))
      if (value !== undefined) env[key] = value;
    const argv = ['run', CHANGE, '--agent', 'claude', '--max-cost', '0.2', '--on-complete', 'ask'];
    session = TmuxSession.start(
      `ralphtool-budget-${process.pid}-${Date.now()}`,
      [process.execPath, CLI_PATH, ...argv],
      { cwd: f.dir, env, width: 120, height: 40 },
    );
    await session.waitForText('The loop ended (budget)', 120_000);
    await session.waitForText('Cleanup or keep?');
    const pid = f.state().pid;
    expect(typeof pid).toBe('number');
    process.kill(pid as number, 'SIGKILL');
    expect(await session.waitForExit(60_000)).toBe(137);
    expect(f.state()).toMatchObject({
      status: 'active',
      outcome: 'budget',
      choice: null,
      budget: { maxCostUsd: 0.2, maxStoryCostUsd: null },
    });
    expect(f.currentBranch()).toBe(`ralph/${CHANGE}`);

    // The recorded budget holds: no attempt starts, outcome budget again (exit 5).
    const again = await asClaude(f, 'resume', ['--json']);
    expect(again.exitCode, again.stderr).toBe(5);
    expect(ofType(events(again), 'story.started')).toEqual([]);
    expect(single(events(again), 'limit.reached')).toMatchObject({
      limit: 'max-cost',
      message: 'spent $0.20 of --max-cost $0.20',
    });
    expect(f.invoked('2', 1)).toBe(false);

    const raised = await asClaude(f, 'resume', ['--json', '--max-cost', '1']);
    expect(raised.exitCode, raised.stderr).toBe(0);
    expect(budgetArg(argvOf(f, '2', 1))).toBe('0.8000');
    expect(single(events(raised), 'run.finished')).toMatchObject({ outcome: 'complete' });
  });
});
