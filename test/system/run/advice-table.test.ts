import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli, type CliRun } from '../../support/cli.js';
import { LiveCli } from '../../support/live-cli.js';
import { printedCommands } from '../../support/printed-command.js';
import { eventually, groupMembers, killGroup } from '../../support/processes.js';
import { quote, RunFixture, stories, succeed, type Step } from '../../run/helpers.js';

// docs/contract.md, "The run's intent": for every way a run can end before its stories do, and
// every agent kind, the way on ralphtool prints is run exactly as printed (a placeholder filled
// in) and the run goes on with the intent it started with: the same agent, the same verify gate
// (it runs again), the same retries. The endings an agent kind cannot reach are said below.

const CHANGE = 'advice';
const NODE = quote(process.execPath);

type Kind = 'command' | 'claude' | 'codex';
type Ending = 'blocked' | 'exhausted' | 'budget' | 'limit' | 'time' | 'error' | 'stop' | 'crash';

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

/** The agent flags and environment of each kind, all the executable fake agent. */
function agentOf(f: RunFixture, kind: Kind): { flags: string[]; env: Record<string, string> } {
  if (kind === 'command') return { flags: ['--agent-command', f.agentWrapper()], env: {} };
  return {
    flags: ['--agent', kind],
    env: {
      [`RALPHTOOL_${kind.toUpperCase()}_BIN`]: f.agentWrapper(),
      FAKE_AGENT_FORMAT: kind,
      IS_SANDBOX: '1',
    },
  };
}

/** A usage limit as each agent kind reports it, reset a moment from now. */
function limitSteps(kind: Kind): Step[] {
  if (kind === 'claude') {
    const at = Math.ceil(Date.now() / 1000) + 1;
    return [{ isError: `Claude AI usage limit reached|${String(at)}` }];
  }
  if (kind === 'codex') return [{ isError: 'You’ve hit your usage limit.' }];
  return [{ resetsIn: 1_000 }, { stderr: 'usage limit reached' }, { exit: 75 }];
}

/** How the first run ends, and the one extra flag it needs for that. */
function firstRun(ending: Ending, kind: Kind, f: RunFixture): { steps: Step[]; flags: string[] } {
  const wait = path.join(f.scratch, 'never');
  switch (ending) {
    case 'blocked':
      return { steps: [{ signal: 'BLOCKED: Which colour?' }], flags: [] };
    case 'exhausted':
      return { steps: [{ say: 'not done' }], flags: ['--max-retries', '0'] };
    case 'budget':
      return { steps: [{ cost: 0.05 }, { say: 'not done' }], flags: ['--max-cost', '0.01'] };
    case 'limit':
      return { steps: limitSteps(kind), flags: ['--on-limit', 'stop'] };
    case 'time':
      return { steps: [{ sleep: 1_500 }, { say: 'not done' }], flags: ['--max-duration', '1s'] };
    case 'stop':
    case 'crash':
      return {
        steps: [{ write: 'started.txt', content: 'yes\n' }, { waitFor: wait }],
        flags: [],
      };
    case 'error':
      return {
        steps: [
          {
            isError: kind === 'claude' ? 'Invalid API key · Please run /login' : '401 Unauthorized',
          },
        ],
        flags: [],
      };
  }
}

/** The way on the run printed (or `status` gives, after a crash), as words, placeholders filled. */
function wayOn(result: CliRun | { stdout: string; stderr: string }): string[] {
  const printed = [
    ...printedCommands(result.stdout, 'ralphtool'),
    ...printedCommands(result.stderr, 'ralphtool'),
  ].filter((words) => words[0] === 'resume');
  expect(printed.length, `${result.stdout}\n${result.stderr}`).toBeGreaterThan(0);
  const fill: Record<string, string> = { '…': 'blue', '<more>': '5' };
  return (printed.at(-1) ?? []).map((word) => fill[word] ?? word);
}

/** Runs the first run to its ending; returns what it printed. */
async function endFirstRun(
  f: RunFixture,
  ending: Ending,
  args: string[],
  env: Record<string, string | undefined>,
): Promise<{ stdout: string; stderr: string }> {
  if (ending !== 'stop' && ending !== 'crash') {
    const first = await runCli(args, { cwd: f.dir, env });
    expect(first.exitCode, first.stderr).not.toBe(0);
    return first;
  }
  // Plain output (no --json): the way on is read as a person reads it.
  const live = new LiveCli(args, f.dir, env);
  await live.waitUntil(() => existsSync(path.join(f.dir, 'started.txt')));
  if (ending === 'stop') {
    live.signal('SIGINT');
    const exit = await live.exited;
    expect(exit.code, live.stderr).toBe(130);
    expect(live.stdout).toContain('stopped by the user');
    return { stdout: live.stdout, stderr: live.stderr };
  }
  await live.kill9();
  const pgid = f.state().agentPgid as number | null;
  if (pgid !== null) {
    killGroup(pgid);
    await eventually(() => groupMembers(pgid).length === 0);
  }
  const status = await runCli(['status'], { cwd: f.dir, env });
  expect(status.exitCode, status.stderr).toBe(0);
  // `next: ralphtool resume <change>   (or end it: …)`: the first command of the line.
  const next = /next: (ralphtool resume [^ ]+)/.exec(status.stdout)?.[1];
  expect(next, status.stdout).toBeDefined();
  return { stdout: `\`${next ?? ''}\``, stderr: '' };
}

/** The agent program's arguments of an attempt, its prompt and budget left out (they differ). */
function agentArgs(f: RunFixture, key: string): string[] {
  const file = path.join(f.logDir, `invocation-${key}.json`);
  const { argv } = JSON.parse(readFileSync(file, 'utf8')) as { argv: string[] };
  // Claude Code's --max-budget-usd is what is left of the budget: it differs by design.
  return argv
    .filter((arg) => arg.length < 200 && !arg.includes('\n'))
    .map((arg, i, all) => (all[i - 1] === '--max-budget-usd' ? '<left>' : arg));
}

/** The arguments of the attempt that ended the run (the story's last). */
function argvOfLastAttempt(f: RunFixture): string[] {
  const stories = f.state().stories as Record<string, { attempts: number }>;
  return agentArgs(f, `1-${String(stories['1']?.attempts ?? 0)}`);
}

/** The outcome each ending records. */
const OUTCOME: Record<Ending, string | null> = {
  blocked: 'blocked',
  exhausted: 'max-retries',
  budget: 'budget',
  limit: 'limited',
  time: 'time-limit',
  error: 'error',
  stop: 'stopped',
  crash: null,
};

const ENDINGS: readonly Ending[] = [
  'error',
  'blocked',
  'exhausted',
  'budget',
  'limit',
  'time',
  'stop',
  'crash',
];
const KINDS: readonly Kind[] = ['command', 'claude', 'codex'];
/**
 * Only Claude Code reports a cost: a budget cannot be spent by the others (a warning says so). A
 * command agent has no fatal error of its own (a failed attempt is retried); the vendors' refused
 * login is one.
 */
const REACHABLE = (ending: Ending, kind: Kind): boolean =>
  (ending !== 'budget' || kind === 'claude') && (ending !== 'error' || kind !== 'command');

describe('every way on, run as printed, keeps the run’s intent', { timeout: 240_000 }, () => {
  for (const kind of KINDS) {
    for (const ending of ENDINGS.filter((e) => REACHABLE(e, kind))) {
      it(`${ending} × ${kind}`, async () => {
        const f = (fixture = new RunFixture(CHANGE, stories(1)));
        const gateRuns = path.join(f.scratch, 'gate-runs');
        const gate = `${NODE} -e "require('fs').appendFileSync('${gateRuns}', 'x')"`;
        const { steps, flags } = firstRun(ending, kind, f);
        f.scenario({
          '1-1#1': steps,
          '1-1': succeed('one.txt', 'one\n'),
          '1-2': succeed('one.txt', 'one\n'),
        });
        const agent = agentOf(f, kind);
        const env = f.env(agent.env);
        const args = [
          'run',
          CHANGE,
          ...agent.flags,
          '--verify',
          gate,
          '--on-complete',
          'keep',
          ...flags,
        ];
        const printed = await endFirstRun(f, ending, args, env);
        // The first run ended the way this row is about (a crash leaves no outcome).
        expect(f.state().outcome ?? null).toBe(OUTCOME[ending]);
        const intent = f.state().intent as Record<string, unknown>;
        const gateBefore = existsSync(gateRuns) ? readFileSync(gateRuns, 'utf8').length : 0;
        const argvOfFirstAttempt = agentArgs(f, '1-1');

        const way = wayOn(printed);
        const resumed = await runCli(way, { cwd: f.dir, env });
        expect(resumed.exitCode, `${way.join(' ')}\n${resumed.stdout}\n${resumed.stderr}`).toBe(0);
        expect(f.state()).toMatchObject({ status: 'finished' });
        // The same agent kind ran the attempt that finished it, and the same gate judged it.
        expect(argvOfLastAttempt(f)).toEqual(argvOfFirstAttempt);
        expect(readFileSync(gateRuns, 'utf8').length).toBeGreaterThan(gateBefore);
        // The intent is as it was, but for the one part the way on replaces.
        const replaced = way.includes('--max-retries') ? 'maxRetries' : null;
        const now = f.state().intent as Record<string, unknown>;
        for (const [key, value] of Object.entries(intent)) {
          if (key !== replaced) expect(now[key], key).toEqual(value);
        }
        expect(now.agent).toBe(kind === 'command' ? 'command' : kind);
      });
    }
  }
});
