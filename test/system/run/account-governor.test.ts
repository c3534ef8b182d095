import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { succeed } from '../faults/support/world.js';
import {
  claudeUsageLimit,
  claudeUtilisation,
  codexUsageLimit,
  FallbackWorld,
} from '../../support/fallback-world.js';
import { LiveCli, type EventJson } from '../../support/live-cli.js';

// The usage governor (docs/contract.md, "One account, many runs") with real processes: separate
// `ralphtool run` processes in separate repositories, whose `claude` is a scripted executable
// printing Claude Code's stream, share one account through the user's state folder (the same
// XDG_STATE_HOME and CLAUDE_CONFIG_DIR: the same account key).

let worlds: FallbackWorld[] = [];
let shared: string | null = null;
afterEach(() => {
  for (const world of worlds) world.remove();
  worlds = [];
  if (shared !== null) rmSync(shared, { recursive: true, force: true });
  shared = null;
});

/** The environment of one account: its state folder and Claude Code's config folder. */
function accountEnv(): Record<string, string> {
  shared = mkdtempSync(path.join(tmpdir(), 'ralph-account-'));
  return {
    XDG_STATE_HOME: path.join(shared, 'state'),
    CLAUDE_CONFIG_DIR: path.join(shared, 'claude'),
    CODEX_HOME: path.join(shared, 'codex'),
  };
}

function world(change: string, stories: number): FallbackWorld {
  const w = new FallbackWorld(change, stories);
  worlds.push(w);
  return w;
}

function runArgs(w: FallbackWorld): string[] {
  return ['run', w.change, '--agent', 'claude', '--json', '--on-complete', 'keep'];
}

function spawnRun(w: FallbackWorld, env: Record<string, string>, extra: string[] = []): LiveCli {
  return new LiveCli([...runArgs(w), ...extra], w.dir, w.fallbackEnv(env));
}

function ofType(events: readonly EventJson[], type: string): EventJson[] {
  return events.filter((e) => e.type === type);
}

describe('one usage governor per account', () => {
  it('a limit one run hits pauses a run in another process before its next attempt (nothing charged); both finish', async () => {
    const env = accountEnv();
    const a = world('gov-a', 1).agents({
      claude: {
        // The reset is 6 s ahead: the second run has that (plus the 10 s margin) to start and meet it.
        '1-1#1': claudeUsageLimit(new Date(Date.now() + 6_000)),
        '1-1#2': succeed('src/a.txt', 'a\n'),
      },
    });
    const b = world('gov-b', 1).agents({ claude: { '1-1': succeed('src/b.txt', 'b\n') } });
    const first = spawnRun(a, env);
    const limited = await first.waitFor((e) => e.type === 'agent.limited');
    // The limit is in the account's file once the first run waits: the second starts now.
    const second = spawnRun(b, env);
    const shared = await second.waitFor((e) => e.type === 'agent.limited');
    expect(shared).toMatchObject({ storyId: '1', attempt: 1, kind: 'usage', source: 'account' });
    expect(String(shared.message)).toContain(`the run of gov-a (pid ${first.pid})`);
    // It waits with the first run, until the same moment (the reset plus the margin).
    expect(Number(shared.waitMs)).toBeGreaterThan(0);
    expect(Number(shared.waitMs)).toBeLessThanOrEqual(Number(limited.waitMs));

    // `status` of the waiting run shows the wait, whom it waits with, and the account.
    const status = await b.ralph(['status', '--json'], env);
    expect(status.exitCode, status.stderr).toBe(0);
    const run = (JSON.parse(status.stdout) as { runs: Record<string, unknown>[] }).runs[0];
    expect(run?.wait).toMatchObject({ source: 'account', storyId: '1' });
    expect(run?.account).toMatchObject({
      key: expect.stringMatching(/^claude-[0-9a-f]{12}$/) as unknown,
      limit: { change: 'gov-a', pid: first.pid },
    });
    const text = await b.ralph(['status'], env);
    expect(text.stdout).toContain(`limited until`);
    expect(text.stdout).toContain(`by the run of gov-a (pid ${first.pid})`);

    const [endA, endB] = await Promise.all([first.exited, second.exited]);
    expect(endA.code, first.stderr).toBe(0);
    expect(endB.code, second.stderr).toBe(0);
    // The second run's agent started once, after the wait; its story took one attempt.
    expect(b.starts('claude')).toEqual(['1-1']);
    const bTypes = second.types().filter((t) => !t.startsWith('agent.') || t === 'agent.limited');
    expect(bTypes.slice(0, 4)).toEqual([
      'run.started',
      'agent.limited',
      'limit.resumed',
      'story.started',
    ]);
    expect(ofType(second.events, 'story.completed')[0]).toMatchObject({ attempts: 1 });
    expect(ofType(first.events, 'story.completed')[0]).toMatchObject({ attempts: 1 });
  }, 120_000);

  it('--pause-at: no new attempt once the window is that full (a wait past --max-wait stops, resumable); a resume with a higher --pause-at goes on', async () => {
    const env = accountEnv();
    // The reset is hours ahead: the pause is decided, never waited out (no clock in the test).
    const reset = new Date(Date.now() + 2 * 3_600_000);
    const w = world('gov-pause', 2).agents({
      claude: {
        '1-1': [claudeUtilisation(0.9, reset), ...succeed('src/one.txt', 'one\n')],
        '2-1': succeed('src/two.txt', 'two\n'),
      },
    });
    const run = spawnRun(w, env, ['--pause-at', '85', '--max-wait', '1m']);
    const end = await run.exited;
    expect(end.code, run.stderr).toBe(5);
    const reached = ofType(run.events, 'limit.reached');
    expect(reached).toHaveLength(1);
    expect(reached[0]).toMatchObject({ limit: 'max-wait' });
    expect(String(reached[0]?.message)).toContain('90% used (--pause-at 85)');
    expect(String(reached[0]?.message)).toContain(`\`ralphtool resume ${w.change}\``);
    // Story 2 never started: the pause comes before the attempt, nothing charged.
    expect(w.starts('claude')).toEqual(['1-1']);
    expect(ofType(run.events, 'story.completed').map((e) => e.storyId)).toEqual(['1']);

    // The account's file holds the utilisation seen, readable by the user only.
    const folder = path.join(env.XDG_STATE_HOME ?? '', 'ralphtool', 'accounts');
    const files = readdirSync(folder);
    expect(files).toEqual([expect.stringMatching(/^claude-[0-9a-f]{12}\.json$/)]);
    const file = path.join(folder, files[0] ?? '');
    expect(JSON.parse(readFileSync(file, 'utf8'))).toMatchObject({
      agent: 'claude',
      usage: { percent: 90, window: 'five_hour', by: { change: 'gov-pause' } },
    });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    // `status` shows the window.
    const status = await w.ralph(['status'], env);
    expect(status.stdout).toContain('90% of the five_hour window used, resets');

    // The recorded intent keeps --pause-at 85 (the same pause again); 95 lets it go on.
    const again = await w.ralph(['resume', w.change, '--json', '--max-wait', '1m'], env);
    expect(again.exitCode, again.stderr).toBe(5);
    const resumed = await w.ralph(
      ['resume', w.change, '--json', '--on-complete', 'keep', '--pause-at', '95'],
      env,
    );
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toContain('--pause-at is now 95 (the run had 85)');
    expect(w.starts('claude')).toEqual(['1-1', '2-1']);
  }, 120_000);

  it('a limit a fallback agent meets goes to its own account: a later run on it waits (nothing charged)', async () => {
    const env = accountEnv();
    const reset = new Date(Date.now() + 2 * 3_600_000);
    // Both agents of the first run meet their limits: the primary's, then the fallback's.
    const a = world('gov-fb-a', 1).agents({
      claude: { '1-1': claudeUsageLimit(reset) },
      codex: { '1-1': codexUsageLimit(7_200) },
    });
    const first = await a.ralph(
      [...runArgs(a), '--fallback-agent', 'codex', '--max-wait', '1m'],
      env,
    );
    expect(first.exitCode, first.stderr).toBe(5);
    expect(a.starts('claude')).toEqual(['1-1']);
    expect(a.starts('codex')).toEqual(['1-1']);
    // One file per account, each with the limit this run hit on it.
    const folder = path.join(env.XDG_STATE_HOME ?? '', 'ralphtool', 'accounts');
    const files = readdirSync(folder)
      .filter((f) => f.endsWith('.json'))
      .sort();
    expect(files).toEqual([
      expect.stringMatching(/^claude-[0-9a-f]{12}\.json$/),
      expect.stringMatching(/^codex-[0-9a-f]{12}\.json$/),
    ]);
    for (const [file, agent] of [
      [files[0], 'claude'],
      [files[1], 'codex'],
    ] as const) {
      expect(JSON.parse(readFileSync(path.join(folder, file ?? ''), 'utf8'))).toMatchObject({
        agent,
        limit: { kind: 'usage', by: { change: 'gov-fb-a' } },
      });
    }

    // A run whose own agent is codex waits for the fallback's limit before its first attempt.
    const b = world('gov-fb-b', 1).agents({ codex: { '1-1': succeed('src/b.txt', 'b\n') } });
    const second = await b.ralph(
      ['run', b.change, '--agent', 'codex', '--json', '--max-wait', '1m'],
      env,
    );
    expect(second.exitCode, second.stderr).toBe(5);
    const reached = ofType(second.events(), 'limit.reached');
    expect(String(reached[0]?.message)).toContain('the run of gov-fb-a (pid ');
    expect(b.starts('codex')).toEqual([]);
  }, 120_000);

  it('with fallback agents, an agent whose account another run found limited is passed over at once (never started)', async () => {
    const env = accountEnv();
    const a = world('gov-skip-a', 1).agents({
      claude: { '1-1': claudeUsageLimit(new Date(Date.now() + 2 * 3_600_000)) },
    });
    // --on-limit stop: the limit is recorded for the account, and this run ends.
    const first = await a.ralph([...runArgs(a), '--on-limit', 'stop'], env);
    expect(first.exitCode, first.stderr).toBe(5);

    const b = world('gov-skip-b', 2).agents({
      claude: { '*': succeed('src/never.txt', 'never\n') },
      codex: { '1-1': succeed('src/one.txt', 'one\n'), '2-1': succeed('src/two.txt', 'two\n') },
    });
    const second = await b.ralph(
      [...runArgs(b), '--fallback-agent', 'codex', '--max-wait', '1m'],
      env,
    );
    expect(second.exitCode, second.stderr).toBe(0);
    expect(b.starts('claude')).toEqual([]);
    expect(b.starts('codex')).toEqual(['1-1', '2-1']);
    const events = second.events();
    expect(ofType(events, 'agent.limited')).toEqual([]);
    const switched = ofType(events, 'agent.switched');
    expect(switched).toHaveLength(1);
    expect(switched[0]).toMatchObject({
      from: 'claude',
      to: 'codex',
      reason: 'limit',
      kind: 'usage',
    });
  }, 120_000);

  it('--pause-at below 1 or above 100, or not a number: one line, exit 2', async () => {
    const env = accountEnv();
    const w = world('gov-bad', 1);
    for (const given of ['0', '101', 'lots']) {
      const result = await w.ralph(
        ['run', w.change, '--agent', 'claude', '--pause-at', given],
        env,
      );
      expect(result.exitCode, given).toBe(2);
      expect(result.stderr.trim().split('\n')).toEqual([
        `ralphtool: --pause-at: "${given}" is not a percent from 1 to 100: use e.g. 80`,
      ]);
    }
    expect(w.git('branch', '--list', 'ralph/*')).toBe('');
  }, 120_000);
});
