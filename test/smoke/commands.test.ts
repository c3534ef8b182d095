import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../support/cli.js';
import { RunFixture, stories, succeed } from '../run/helpers.js';

// The contributor tier's smoke test of the commands a run goes through and of each agent kind
// the fake agent can speak (plain lines, Claude Code's stream-json, Codex's exec --json): the
// built CLI as a process, once each. What each command decides is tested in-process beside it;
// the spawned variants of every ending live in test/system/.

const CHANGE = 'smoke';

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe('the commands of a run, as processes', () => {
  it('run parks on a question; status shows it; resume --answer finishes; report; finish --prune', async () => {
    const f = (fixture = new RunFixture(CHANGE, stories(2)));
    f.scenario({
      '1-1': succeed('one.txt', 'one\n'),
      // A question is not counted: the answered attempt is 2-1 started a second time.
      '2-1#1': [{ signal: 'BLOCKED: Which colour?' }],
      '2-1#2': succeed('two.txt', 'two\n'),
    });

    const run = await f.run(['--on-complete', 'keep']);
    expect(run.exitCode).toBe(4);
    // The advice, as printed: the run's agent (a command) is recorded, so it needs no flags.
    const printed = /`ralphtool (resume [^`]*--answer "…")`/.exec(run.stdout)?.[1];
    expect(printed).toBe(`resume ${CHANGE} --answer "…"`);

    const status = await runCli(['status'], { cwd: f.dir, env: f.env() });
    expect(status.exitCode).toBe(0);
    expect(status.stdout).toContain('Which colour?');

    const resume = await runCli(['resume', CHANGE, '--answer', 'blue'], {
      cwd: f.dir,
      env: f.env(),
    });
    expect(resume.stderr).toBe('');
    expect(resume.exitCode).toBe(0);
    expect(f.prompt('2', 1)).toContain('blue');
    expect(f.subjects(`main..ralph/${CHANGE}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);

    const report = await runCli(['report', CHANGE, '--markdown'], { cwd: f.dir, env: f.env() });
    expect(report.exitCode).toBe(0);
    expect(report.stdout).toContain('**2/2 stories** · finished (keep) · branch `ralph/smoke`');

    // The finished, kept run: the change list says where its work is.
    const list = await runCli(['list'], { cwd: f.dir, env: f.env() });
    expect(list.exitCode).toBe(0);
    expect(list.stdout).toContain(`${CHANGE} [kept on ralph/${CHANGE}, not merged]`);

    const finish = await runCli(['finish', CHANGE, '--prune'], { cwd: f.dir, env: f.env() });
    expect(finish.exitCode).toBe(0);
    expect(f.exists(`.git/ralphtool/${CHANGE}/state.json`)).toBe(false);
    expect(f.attemptRefs()).toEqual([]);
  });
});

describe('each agent kind, as a process printing its own format', () => {
  for (const kind of ['claude', 'codex'] as const) {
    it(`--agent ${kind}: the story is accepted and the run completes`, async () => {
      const f = (fixture = new RunFixture(CHANGE, stories(1)));
      f.scenario({ '1-1': succeed('one.txt', 'one\n') });
      const result = await runCli(['run', CHANGE, '--agent', kind, '--json'], {
        cwd: f.dir,
        env: f.env({
          [`RALPHTOOL_${kind.toUpperCase()}_BIN`]: f.agentWrapper(),
          FAKE_AGENT_FORMAT: kind,
          IS_SANDBOX: '1',
        }),
      });
      expect(result.stderr).toBe('');
      expect(result.exitCode).toBe(0);
      const finished = result.events().find((event) => event.type === 'run.finished');
      expect(finished).toMatchObject({ outcome: 'complete' });
      expect(f.subjects(`main..ralph/${CHANGE}`)).toEqual(['initial state', 'checkpoint: 1']);
    });
  }
});
