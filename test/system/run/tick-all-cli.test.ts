import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../../src/core/events.js';
import { parseTasks } from '../../../src/openspec/tasks.js';
import { ofType, RunFixture, stories } from '../../run/helpers.js';
import { row } from '../../support/plain-output.js';

// End to end (the real CLI, the executable fake agent): an agent told to "mark all tasks done"
// ticks every task of every story. Each story must still run its own attempt (docs/contract.md,
// "An attempt works on its own story").

const CHANGE = 'tick-everything';
const TASKS = `openspec/changes/${CHANGE}/tasks.md`;
const TICK_ALL = { '*': [{ tick: 'every' }, { say: 'all tasks done' }, { signal: 'COMPLETE' }] };

let fixture: RunFixture | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

/** Stories done in tasks.md at a commit of the run's branch. */
function doneAt(f: RunFixture, rev: string): string[] {
  return parseTasks(f.git('show', `${rev}:${TASKS}`))
    .filter((s) => s.done)
    .map((s) => s.id);
}

describe('ralphtool run with an agent that ticks every task', () => {
  it('runs each of the 6 stories in its own attempt, one checkpoint each, and says so', async () => {
    fixture = new RunFixture(CHANGE, stories(6, 2)).scenario(TICK_ALL);
    const result = await fixture.run(['--on-complete', 'keep']);
    expect(result.stderr).toBe('');
    expect(result.exitCode).toBe(0);
    const out = result.stdout;

    const ids = ['1', '2', '3', '4', '5', '6'];
    for (const [i, id] of ids.entries()) {
      expect(out).toContain(`[${i + 1}/6] Story ${id}: Story ${id}`);
      expect(row(out, id)).toEqual(expect.arrayContaining(['1', 'done']));
    }
    // Stories 1 to 5 each ticked the later ones: reported, and undone in their checkpoints.
    expect(out.match(/edited other stories in tasks\.md: ticked/g)).toHaveLength(5);
    expect(out).toContain('all stories complete · 6/6 stories');

    const checkpoints = fixture
      .subjects(`main..ralph/${CHANGE}`)
      .filter((s) => s.startsWith('checkpoint'));
    expect(checkpoints).toEqual(ids.map((id) => `checkpoint: ${id}`));
    for (const [i] of ids.entries()) {
      expect(doneAt(fixture, `ralph/${CHANGE}~${5 - i}`)).toEqual(ids.slice(0, i + 1));
    }
  });

  it('--json: six story.completed, run.finished counts six of six', async () => {
    fixture = new RunFixture(CHANGE, stories(6, 1)).scenario(TICK_ALL);
    const result = await fixture.run(['--on-complete', 'keep', '--json']);
    expect(result.exitCode).toBe(0);
    const events = result.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as RunEvent);
    expect(ofType(events, 'story.completed').map((e) => e.storyId)).toEqual([
      '1',
      '2',
      '3',
      '4',
      '5',
      '6',
    ]);
    expect(ofType(events, 'tasks.out-of-scope')).toHaveLength(5);
    expect(ofType(events, 'run.finished')[0]).toMatchObject({
      outcome: 'complete',
      storiesCompleted: 6,
      storiesTotal: 6,
    });
  });
});
