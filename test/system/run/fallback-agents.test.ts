import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src/core/events.js';
import type { EventJson } from '../../support/live-cli.js';
import { printed, row } from '../../support/plain-output.js';
import { succeed } from '../faults/support/world.js';
import { claudeUsageLimit, codexUsageLimit, FallbackWorld } from '../../support/fallback-world.js';

// `--fallback-agent` (docs/contract.md, "Fallback agents") with the real CLI and real agent
// processes: `claude` and `codex` are scripted executables printing their vendors' streams
// (test/support/fallback-world.ts); Claude Code's limit is its recorded 429 `rate_limit_event` +
// error `result`, Codex's its `turn.failed`. Resets are far ahead (no wait may happen) or a
// second ahead (the reset plus the 10 s margin is waited or outlived).

const CHANGE = 'fallback';

let world: FallbackWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

function ofType<T extends RunEvent['type']>(events: EventJson[], type: T): EventJson[] {
  return events.filter((e) => e.type === type);
}

/** `[storyId, attempt, agent]` of every attempt, in order. */
function attempts(events: EventJson[]): [unknown, unknown, unknown][] {
  return ofType(events, 'story.started').map((e) => [e.storyId, e.attempt, e.agent]);
}

function inHours(hours: number): Date {
  return new Date(Date.now() + hours * 3_600_000);
}

describe('ralphtool run --fallback-agent', () => {
  it('primary at its usage limit: the same story goes on with the fallback at once (no wait), accepted; the primary stays limited', async () => {
    const resetsAt = inHours(2);
    world = new FallbackWorld(CHANGE, 2).agents({
      claude: { '1-1': claudeUsageLimit(resetsAt) },
      codex: { '1-1': succeed('src/one.txt', 'one\n'), '2-1': succeed('src/two.txt', 'two\n') },
    });
    const w = world;
    const started = Date.now();
    const result = await w.loopWith('run', ['--fallback-agent', 'codex', '--max-wait', '1m']);
    expect(result.exitCode, result.stderr).toBe(0);
    const events = result.events();
    // Nothing was waited: no agent.limited, and far less than the reset or --max-wait.
    expect(ofType(events, 'agent.limited')).toEqual([]);
    expect(Date.now() - started).toBeLessThan(60_000);
    expect(events[0]).toMatchObject({
      type: 'run.started',
      agent: 'claude',
      fallbacks: [{ agent: 'codex', model: null }],
    });
    expect(attempts(events)).toEqual([
      ['1', 1, 'claude'],
      ['1', 1, 'codex'],
      ['2', 1, 'codex'],
    ]);
    const switched = ofType(events, 'agent.switched');
    expect(switched).toHaveLength(1);
    const until = String(switched[0]?.until);
    expect(switched[0]).toMatchObject({
      storyId: '1',
      attempt: 1,
      from: 'claude',
      to: 'codex',
      reason: 'limit',
      kind: 'usage',
      resetsAt: new Date(Math.floor(resetsAt.getTime() / 1000) * 1000).toISOString(),
    });
    // Limited until its reset plus the 10 s margin.
    expect(Date.parse(until) - Math.floor(resetsAt.getTime() / 1000) * 1000).toBe(10_000);
    // The limited attempt was reverted and saved, not counted; the switch comes after its revert.
    const types = events
      .map((e) => e.type)
      .filter((t) => !t.startsWith('agent.') || t === 'agent.switched');
    expect(types.slice(0, 6)).toEqual([
      'run.started',
      'story.started',
      'checkpoint.reverted',
      'agent.switched',
      'story.started',
      'checkpoint.created',
    ]);
    expect(ofType(events, 'attempt.failed')).toEqual([]);
    expect(ofType(events, 'story.completed')[0]).toMatchObject({ storyId: '1', attempts: 1 });
    expect(w.git('show', `refs/ralphtool/${CHANGE}/attempts/1-1:src/partial.txt`)).toBe(
      'half-way\n',
    );
    expect(w.subjects(`main..${w.branch}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
    expect(w.starts('claude')).toEqual(['1-1']);
    expect(w.starts('codex')).toEqual(['1-1', '2-1']);

    // Recorded: the fallbacks, claude's limit, the agents per story and of the last attempt.
    const state = w.state();
    expect(state.fallback).toEqual({
      agents: [{ agent: 'codex', model: null }],
      limited: { claude: expect.objectContaining({ until, kind: 'usage' }) as unknown },
    });
    expect(state.stories['1']).toMatchObject({ attempts: 1, agents: ['claude', 'codex'] });
    expect(state.stories['2']).toMatchObject({ attempts: 1, agents: ['codex'] });
    expect(state.attemptAgent).toEqual({ agent: 'codex', model: null });

    // The plain output: the switch, the agent of each attempt, the AGENT column.
    const out = printed(events as unknown as RunEvent[]);
    expect(out).toMatch(
      /⇄ claude is at its usage limit until .*: story 1 goes on with codex at once; the attempt does not count/,
    );
    expect(out).toContain('[1/2] Story 1: Story 1 · codex');
    expect(out).toMatch(/STORY\s+TITLE\s+ATTEMPTS\s+AGENT\s+RESULT\s+COST\s+TIME/);
    expect(row(out, '1')?.slice(0, 5)).toEqual(['1', 'Story 1', '1', 'claude, codex', 'done']);
    expect(row(out, '2')?.slice(0, 5)).toEqual(['2', 'Story 2', '1', 'codex', 'done']);
  }, 120_000);

  it('the primary is tried again once its reset has passed, with its own model; fallback models are passed to theirs', async () => {
    // Claude's reset is a second away: limited for about 11 s. Codex's story 1 outlasts that.
    world = new FallbackWorld(CHANGE, 2).agents({
      claude: {
        '1-1': claudeUsageLimit(new Date(Date.now() + 1000)),
        '2-1': succeed('src/two.txt', 'two\n'),
      },
      codex: { '1-1': [{ sleep: 13_000 }, ...succeed('src/one.txt', 'one\n')] },
    });
    const w = world;
    const result = await w.loopWith('run', [
      '--model',
      'opus-x',
      '--fallback-agent',
      'codex',
      '--fallback-model',
      'gpt-x',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const events = result.events();
    expect(ofType(events, 'agent.limited')).toEqual([]);
    expect(attempts(events)).toEqual([
      ['1', 1, 'claude'],
      ['1', 1, 'codex'],
      ['2', 1, 'claude'],
    ]);
    expect(ofType(events, 'story.started').map((e) => e.model)).toEqual([
      'opus-x',
      'gpt-x',
      'opus-x',
    ]);
    expect(ofType(events, 'agent.switched').map((e) => [e.from, e.to, e.reason])).toEqual([
      ['claude', 'codex', 'limit'],
      ['codex', 'claude', 'reset'],
    ]);
    expect(w.starts('claude')).toEqual(['1-1', '2-1']);
    // The real command lines: each agent got its own model.
    const argv = (name: 'claude' | 'codex', key: string): string[] => {
      const file = path.join(w.scratch, `log-${name}`, `invocation-${key}.json`);
      return (JSON.parse(readFileSync(file, 'utf8')) as { argv: string[] }).argv;
    };
    expect(argv('claude', '2-1')).toEqual(expect.arrayContaining(['--model', 'opus-x']));
    expect(argv('codex', '1-1')).toEqual(expect.arrayContaining(['-m', 'gpt-x']));
    // The expired limit is forgotten.
    expect(w.state().fallback).toMatchObject({ limited: {} });
  }, 120_000);

  it("every agent limited: waits (today's policy) until the first reset, then that agent runs the story", async () => {
    world = new FallbackWorld(CHANGE, 1).agents({
      claude: {
        '1-1#1': claudeUsageLimit(new Date(Date.now() + 1000)),
        '1-1#2': succeed('src/one.txt', 'one\n'),
      },
      codex: { '1-1': codexUsageLimit(3600) },
    });
    const w = world;
    const result = await w.loopWith('run', ['--fallback-agent', 'codex']);
    expect(result.exitCode, result.stderr).toBe(0);
    const events = result.events();
    expect(attempts(events)).toEqual([
      ['1', 1, 'claude'],
      ['1', 1, 'codex'],
      ['1', 1, 'claude'],
    ]);
    const waited = ofType(events, 'agent.limited');
    expect(waited).toHaveLength(1);
    expect(waited[0]).toMatchObject({ storyId: '1', kind: 'usage' });
    expect(String(waited[0]?.message)).toContain('every agent is limited, claude resets first');
    // Claude's reset (a second away) plus the margin, less what the codex attempt took.
    expect(Number(waited[0]?.waitMs)).toBeGreaterThan(1_000);
    expect(Number(waited[0]?.waitMs)).toBeLessThanOrEqual(11_000);
    expect(ofType(events, 'limit.resumed')).toHaveLength(1);
    expect(ofType(events, 'agent.switched').map((e) => [e.from, e.to, e.reason])).toEqual([
      ['claude', 'codex', 'limit'],
      ['codex', 'claude', 'reset'],
    ]);
    expect(ofType(events, 'story.completed')[0]).toMatchObject({ storyId: '1', attempts: 1 });
    // Codex stays limited (an hour), recorded; the wait record is gone.
    const state = w.state();
    expect(Object.keys((state.fallback as { limited: object }).limited)).toEqual(['codex']);
    expect(state.wait ?? null).toBeNull();
  }, 120_000);

  it('every agent limited past --max-wait: outcome limited (exit 5), resumable', async () => {
    world = new FallbackWorld(CHANGE, 1).agents({
      claude: { '1-1': claudeUsageLimit(inHours(2)) },
      codex: { '1-1': codexUsageLimit(7200) },
    });
    const w = world;
    const result = await w.loopWith('run', ['--fallback-agent', 'codex', '--max-wait', '10m']);
    expect(result.exitCode, result.stderr).toBe(5);
    const events = result.events();
    expect(ofType(events, 'limit.reached')[0]).toMatchObject({ limit: 'max-wait' });
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'limited' });
    expect(w.state().stories['1']).toMatchObject({ attempts: 0 });
  }, 120_000);

  it('--on-limit stop still switches (no wait is needed); it stops only when every agent is limited', async () => {
    world = new FallbackWorld(CHANGE, 2).agents({
      claude: { '1-1': claudeUsageLimit(inHours(2)) },
      codex: { '1-1': succeed('src/one.txt', 'one\n'), '2-1': codexUsageLimit(7200) },
    });
    const w = world;
    const result = await w.loopWith('run', ['--fallback-agent', 'codex', '--on-limit', 'stop']);
    expect(result.exitCode, result.stderr).toBe(5);
    const events = result.events();
    expect(attempts(events)).toEqual([
      ['1', 1, 'claude'],
      ['1', 1, 'codex'],
      ['2', 1, 'codex'],
    ]);
    expect(ofType(events, 'story.completed').map((e) => e.storyId)).toEqual(['1']);
    const stop = ofType(events, 'error').find((e) => String(e.message).includes('--on-limit stop'));
    expect(String(stop?.message)).toContain('every agent is limited, claude resets first');
    expect(events.at(-1)).toMatchObject({ type: 'run.finished', outcome: 'limited' });
  }, 120_000);

  it('a transient API error (529 overloaded) does not switch: it is waited out on the same agent', async () => {
    // Claude Code 2.1.197's own result after its retries of a 529 (test/fixtures/claude-stream/).
    const overloaded = JSON.stringify({
      type: 'result',
      subtype: 'success',
      is_error: true,
      api_error_status: 529,
      duration_ms: 4423,
      duration_api_ms: 0,
      num_turns: 1,
      result:
        'API Error: 529 Overloaded. This is a server-side issue, usually temporary — try again in a moment. If it persists, check your inference gateway (127.0.0.1:35245).',
      stop_reason: 'stop_sequence',
      session_id: 'f2fcc649-1988-42d8-b95e-81ceaf1dea9b',
      total_cost_usd: 0,
    });
    world = new FallbackWorld(CHANGE, 1).agents({
      claude: {
        '1-1#1': [{ raw: overloaded }, { exit: 1 }],
        '1-1#2': succeed('src/one.txt', 'one\n'),
      },
      codex: { '*': succeed('src/codex.txt', 'codex\n') },
    });
    const w = world;
    const result = await w.loopWith('run', ['--fallback-agent', 'codex']);
    expect(result.exitCode, result.stderr).toBe(0);
    const events = result.events();
    expect(ofType(events, 'agent.limited')[0]).toMatchObject({
      kind: 'overloaded',
      waitMs: 15_000,
    });
    expect(ofType(events, 'agent.switched')).toEqual([]);
    expect(attempts(events)).toEqual([
      ['1', 1, 'claude'],
      ['1', 1, 'claude'],
    ]);
    expect(w.starts('codex')).toEqual([]);
    expect(w.state().fallback).toMatchObject({ limited: {} });
  }, 120_000);

  it("kill -9 during the fallback's attempt, then resume: status names the agents; the resume keeps the fallbacks and does not try the limited primary", async () => {
    world = new FallbackWorld(CHANGE, 1).agents({
      claude: { '1-1': claudeUsageLimit(inHours(2)) },
      codex: {
        '1-1': [{ write: 'src/partial.txt', content: 'codex was here\n' }, { hang: true }],
        // The attempt ralphtool did not outlive counts (docs/contract.md, "Interrupted runs").
        '1-2': succeed('src/one.txt', 'one\n'),
      },
    });
    const w = world;
    const live = w.spawnWith('run', ['--fallback-agent', 'codex']);
    await live.waitFor((e) => e.type === 'story.started' && e.agent === 'codex');
    await live.waitUntil(() => w.starts('codex').length === 1);
    await live.kill9();
    const pgid = (w.state().agentPgid as number | null) ?? null;
    if (pgid !== null) w.strayGroups.push(pgid);

    const status = await w.ralph(['status', '--json']);
    expect(status.exitCode, status.stderr).toBe(0);
    const run = (JSON.parse(status.stdout) as { runs: Record<string, unknown>[] }).runs[0];
    expect(run).toMatchObject({
      state: 'interrupted',
      agent: { agent: 'codex', model: null },
      fallback: {
        agents: [{ agent: 'codex', model: null }],
        limited: [{ agent: 'claude', kind: 'usage' }],
      },
    });
    const plain = await w.ralph(['status']);
    // HH:MM today; with the date when the reset is on another day (a run near midnight).
    expect(plain.stdout).toMatch(
      /agent codex · fallbacks codex · claude limited until (\d{4}-\d\d-\d\d )?\d\d:\d\d/,
    );

    // No --fallback-agent on resume: the recorded ones are kept.
    const resumed = await w.loopWith('resume');
    expect(resumed.exitCode, resumed.stderr + resumed.stdout).toBe(0);
    const events = resumed.events();
    expect(events[0]).toMatchObject({
      type: 'run.started',
      fallbacks: [{ agent: 'codex', model: null }],
      stories: [expect.objectContaining({ id: '1', agents: ['claude', 'codex'] }) as unknown],
    });
    expect(attempts(events)).toEqual([['1', 2, 'codex']]);
    expect(ofType(events, 'agent.switched')).toEqual([]);
    expect(w.starts('claude')).toEqual(['1-1']);
    expect(ofType(events, 'story.completed')[0]).toMatchObject({ storyId: '1', attempts: 2 });
    expect(w.exists('src/partial.txt')).toBe(false);
  }, 180_000);

  it('resume with other --fallback-agent flags replaces the recorded ones, with a notice', async () => {
    world = new FallbackWorld(CHANGE, 1).agents({
      claude: { '1-1': claudeUsageLimit(inHours(2)) },
      codex: { '1-1': codexUsageLimit(7200) },
    });
    const w = world;
    const first = await w.loopWith('run', ['--fallback-agent', 'codex', '--max-wait', '1m']);
    expect(first.exitCode, first.stderr).toBe(5);
    const again = await w.loopWith('resume', [
      '--fallback-agent',
      'codex',
      '--fallback-model',
      'gpt-y',
      '--max-wait',
      '1m',
    ]);
    expect(again.stderr).toContain(
      'ralphtool: --fallback-agent is now codex (model gpt-y) (the run had codex)',
    );
    expect(w.state().fallback).toMatchObject({ agents: [{ agent: 'codex', model: 'gpt-y' }] });
    // Both still limited (recorded): the resume starts no agent and stops at --max-wait.
    expect(again.exitCode, again.stderr).toBe(5);
    expect(attempts(again.events())).toEqual([]);
    expect(w.starts('claude')).toEqual(['1-1']);
    expect(w.starts('codex')).toEqual(['1-1']);
  }, 120_000);
});

describe('a budget with agents that report no cost', () => {
  it('says what is true: a command-like primary is not counted, its costed fallback is', async () => {
    world = new FallbackWorld(CHANGE, 1).agents({
      codex: { '1-1': succeed('src/one.txt', 'one\n') },
    });
    const w = world;
    const result = await w.ralph([
      'run',
      CHANGE,
      '--agent',
      'codex',
      '--fallback-agent',
      'claude',
      '--max-cost',
      '1',
      '--on-complete',
      'keep',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const said = result.stdout + result.stderr;
    expect(said).not.toContain('cannot be checked');
    expect(said).toContain(
      '--max-cost counts only the attempts of claude: codex reports no cost, so its attempts add nothing to the budget',
    );
  });

  it('says it cannot be checked when no agent of the run reports a cost', async () => {
    world = new FallbackWorld(CHANGE, 1).agents({
      codex: { '1-1': succeed('src/one.txt', 'one\n') },
    });
    const result = await world.ralph([
      'run',
      CHANGE,
      '--agent',
      'codex',
      '--max-cost',
      '1',
      '--on-complete',
      'keep',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.stdout + result.stderr).toContain(
      '--max-cost cannot be checked: the codex agent reports no cost',
    );
  });
});
