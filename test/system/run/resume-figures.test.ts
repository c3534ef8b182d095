import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src/core/events.js';
import { formatDuration } from '../../../src/format/units.js';
import { applyEvents, initialLoopView } from '../../../src/ui/state/loop-view.js';
import { storyStatus } from '../../../src/ui/state/loop-status.js';
import { LoopHarness } from '../../support/loop-harness.js';
import { runCli, type CliRun } from '../../support/cli.js';
import { ofType, RunFixture, single, stories, succeed } from '../../run/helpers.js';
import { printed, row } from '../../support/plain-output.js';

// docs/contract.md, "The summary": after `resume`, the figures of the stories earlier invocations
// finished (attempts, cost, time, from the run state) are in the table and in run.finished; a stop
// leaves no story "running".

const CHANGE = 'resume-figures';

let fixture: LoopHarness | RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

function events(result: CliRun): RunEvent[] {
  return result.stdout
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as RunEvent);
}

/** `ralphtool run|resume` with the fake agent as `claude` (each of its results costs $0.0125). */
function asClaude(f: RunFixture, command: 'run' | 'resume', plain = false): Promise<CliRun> {
  return runCli(
    [command, CHANGE, '--agent', 'claude', '--on-complete', 'keep', ...(plain ? [] : ['--json'])],
    {
      cwd: f.dir,
      env: f.env({
        RALPHTOOL_CLAUDE_BIN: f.agentWrapper(),
        FAKE_AGENT_FORMAT: 'claude',
        IS_SANDBOX: '1',
      }),
      timeoutMs: 240_000,
    },
  );
}

describe('figures after resume', () => {
  it('the table and run.finished include the stories earlier invocations finished', async () => {
    fixture = new RunFixture(CHANGE, stories(3)).scenario({
      '1-1': [{ write: 'src/a.txt', content: 'a\n' }, { signal: 'FAILED: not yet' }],
      '1-2': succeed('src/a.txt', 'a\n'),
      '2-1': succeed('src/b.txt', 'b\n'),
      // Not logged in: the run ends (exit 1) after story 2, kept for resume.
      '3-*': [{ isError: 'Invalid API key · Please run /login' }],
    });
    const f = fixture;
    const first = await asClaude(f, 'run');
    expect(first.exitCode, first.stderr).toBe(1);
    expect(f.state()).toMatchObject({
      stories: { '1': { attempts: 2, completed: true }, '2': { attempts: 1, completed: true } },
    });

    f.scenario({ '3-*': succeed('src/c.txt', 'c\n') });
    const resumed = await asClaude(f, 'resume');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    const list = events(resumed);
    // Only story 3 ran in this invocation…
    expect(ofType(list, 'story.started').map((e) => e.storyId)).toEqual(['3']);
    // …yet the figures count all three, from the run state.
    const state = f.state() as {
      costUsd: number;
      stories: Record<string, { costUsd: number; durationMs: number }>;
    };
    const finished = single(list, 'run.finished');
    expect(finished).toMatchObject({ outcome: 'complete', storiesCompleted: 3, storiesTotal: 3 });
    expect(finished.costUsd).toBeCloseTo(state.costUsd, 10);
    expect(state.stories['1']?.costUsd).toBeCloseTo(0.025, 10);

    const out = printed(list);
    expect(row(out, '1')).toEqual(['1', 'Story 1', '2', 'done', '$0.025', expect.any(String)]);
    expect(row(out, '2')).toEqual(['2', 'Story 2', '1', 'done', '$0.0125', expect.any(String)]);
    expect(row(out, '3')?.slice(2, 4)).toEqual(['1', 'done']);
    // Earlier invocations' time counts too: story 1 ran two attempts of a real process.
    const recorded = state.stories['1']?.durationMs ?? 0;
    expect(recorded).toBeGreaterThan(0);
    expect(row(out, '1')?.[5]).toBe(formatDuration(recorded));
    const total = `$${state.costUsd.toFixed(4).replace(/0+$/, '')}`;
    expect(out).toContain(`all stories complete · 3/3 stories · ${total} ·`);
  });
});

describe('figures after a stop', () => {
  it('no story is left "running", in the plain table or in the UI', async () => {
    fixture = new LoopHarness(CHANGE, stories(2)).scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
      '2-*': [{ say: 'working on story 2' }, { hang: true }],
    });
    const result = await fixture.run({
      completion: 'keep',
      stopWhen: (e) => e.type === 'agent.message' && e.text === 'working on story 2',
    });
    expect(result.exitCode).toBe(130);
    const out = printed(result.events());
    expect(out).not.toMatch(/\brunning\b/);
    // The stopped attempt is reverted and does not count, as in the run state.
    expect(row(out, '2')?.slice(2, 4)).toEqual(['0', 'stopped']);
    expect(row(out, '1')?.slice(2, 4)).toEqual(['1', 'done']);
    const ts = new Date(0).toISOString();
    const view = applyEvents(
      initialLoopView(''),
      result.events().map((e) => ({ ...e, ts })),
      1000,
    );
    expect(view.summary.stories.map((s) => s.result)).toEqual(['done', 'stopped']);
    expect(storyStatus(view, '2')).not.toBe('current');
  });
});
