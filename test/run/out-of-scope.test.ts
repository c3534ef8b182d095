import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { RunEvent } from '../../src/core/events.js';
import { parseTasks } from '../../src/openspec/tasks.js';
import { applyEvents, initialLoopView } from '../../src/ui/state/loop-view.js';
import { LoopHarness } from '../support/loop-harness.js';
import { ofType, stories, succeed } from './helpers.js';

// docs/contract.md, "An attempt works on its own story": edits of other stories in tasks.md are
// reported, and undone in the checkpoint of an accepted attempt, so every story gets its own.

const CHANGE = 'add-widgets';
const TASKS = `openspec/changes/${CHANGE}/tasks.md`;

let fixture: LoopHarness | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

/** `id:x` / `id: ` of every task in a tasks.md text. */
function ticks(text: string): string[] {
  return parseTasks(text).flatMap((s) => s.tasks.map((t) => `${t.id}:${t.done ? 'x' : ' '}`));
}

function tasksAt(f: LoopHarness, rev: string): string {
  return f.git('show', `${rev}:${TASKS}`);
}

function tasksNow(f: LoopHarness): string {
  return readFileSync(path.join(f.dir, TASKS), 'utf8');
}

const outOfScope = (events: RunEvent[]) => ofType(events, 'tasks.out-of-scope');

describe('an attempt that ticks every task of every story', () => {
  it('completes only its own story: every story runs its own attempt, one checkpoint each', async () => {
    fixture = new LoopHarness(CHANGE, stories(3, 2)).scenario({
      '*': [{ tick: 'every' }, { signal: 'COMPLETE' }],
    });
    const result = await fixture.run({ completion: 'keep' });
    expect(result.exitCode).toBe(0);
    const events = result.events();

    expect(ofType(events, 'story.started').map((e) => `${e.storyId}-${e.attempt}`)).toEqual([
      '1-1',
      '2-1',
      '3-1',
    ]);
    expect(outOfScope(events)).toEqual([
      {
        type: 'tasks.out-of-scope',
        storyId: '1',
        attempt: 1,
        edits: ['2.1', '2.2', '3.1', '3.2'].map((id) => ({
          kind: 'ticked',
          storyId: id[0],
          taskId: id,
        })),
        savedRef: `refs/ralphtool/${CHANGE}/attempts/1-1`,
      },
      {
        type: 'tasks.out-of-scope',
        storyId: '2',
        attempt: 1,
        edits: ['3.1', '3.2'].map((id) => ({ kind: 'ticked', storyId: '3', taskId: id })),
        savedRef: `refs/ralphtool/${CHANGE}/attempts/2-1`,
      },
    ]);
    // Each checkpoint holds its own story's ticks and no later story's.
    expect(fixture.subjects('main..HEAD')).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
      'checkpoint: 3',
    ]);
    expect(ticks(tasksAt(fixture, 'HEAD~2'))).toEqual([
      '1.1:x',
      '1.2:x',
      '2.1: ',
      '2.2: ',
      '3.1: ',
      '3.2: ',
    ]);
    expect(ticks(tasksAt(fixture, 'HEAD~1'))).toEqual([
      '1.1:x',
      '1.2:x',
      '2.1:x',
      '2.2:x',
      '3.1: ',
      '3.2: ',
    ]);
    expect(ticks(tasksAt(fixture, 'HEAD'))).toEqual([
      '1.1:x',
      '1.2:x',
      '2.1:x',
      '2.2:x',
      '3.1:x',
      '3.2:x',
    ]);
    // The agent's own edit is kept under its attempt ref.
    expect(ticks(tasksAt(fixture, `refs/ralphtool/${CHANGE}/attempts/1-1`))).toEqual([
      '1.1:x',
      '1.2:x',
      '2.1:x',
      '2.2:x',
      '3.1:x',
      '3.2:x',
    ]);
    // The UI's transcript of story 1 says what was edited and undone.
    const ts = new Date(0).toISOString();
    const view = applyEvents(
      initialLoopView(''),
      events.map((e) => ({ ...e, ts })),
      1000,
    );
    expect(view.details['1']?.transcript.lines.map((l) => l.text)).toContain(
      `attempt 1 edited other stories in tasks.md: ticked 2.1, 2.2, 3.1, 3.2; undone in the checkpoint (its tasks.md is saved as refs/ralphtool/${CHANGE}/attempts/1-1)`,
    );
    const finished = ofType(events, 'run.finished')[0];
    expect(finished).toMatchObject({ outcome: 'complete', storiesCompleted: 3, storiesTotal: 3 });
  });

  it('a failed attempt that ticked other stories is reported and reverted whole', async () => {
    fixture = new LoopHarness(CHANGE, stories(2, 1)).scenario({
      '1-1': [{ tick: 'every' }, { signal: 'FAILED: could not build' }],
      '1-2': succeed('one.txt', '1\n'),
      '2-1': succeed('two.txt', '2\n'),
    });
    const result = await fixture.run({ completion: 'keep' });
    expect(result.exitCode).toBe(0);
    const events = result.events();
    expect(outOfScope(events)).toEqual([
      {
        type: 'tasks.out-of-scope',
        storyId: '1',
        attempt: 1,
        edits: [{ kind: 'ticked', storyId: '2', taskId: '2.1' }],
        savedRef: null,
      },
    ]);
    const types = events.map((e) => e.type);
    expect(types.indexOf('tasks.out-of-scope')).toBeLessThan(types.indexOf('attempt.failed'));
    expect(ofType(events, 'story.started').map((e) => `${e.storyId}-${e.attempt}`)).toEqual([
      '1-1',
      '1-2',
      '2-1',
    ]);
  });
});

describe("edits of other stories' tasks", () => {
  it('un-ticking a finished story, rewording, removing and adding are undone in the checkpoint', async () => {
    fixture = new LoopHarness(CHANGE, stories(3, 2));
    const original = tasksNow(fixture);
    // Story 2's attempt, seen from after story 1's checkpoint: un-ticks 1.1, rewords 3.1,
    // removes 3.2, adds a story 4, and ticks its own tasks.
    const afterStory1 = original
      .replace('- [ ] 1.1', '- [x] 1.1')
      .replace('- [ ] 1.2', '- [x] 1.2');
    const edited = `${afterStory1
      .replace('- [x] 1.1', '- [ ] 1.1')
      .replace('- [ ] 2.1', '- [x] 2.1')
      .replace('- [ ] 2.2', '- [x] 2.2')
      .replace('3.1 do thing 1 of story 3', '3.1 do something else')
      .replace(/- \[ \] 3\.2 .*\n/, '')}\n## 4. Extra\n\n- [ ] 4.1 more work\n`;
    fixture.scenario({
      '1-1': [{ tick: 'all' }, { signal: 'COMPLETE' }],
      '2-1': [{ write: TASKS, content: edited }, { signal: 'COMPLETE' }],
      '3-1': [{ tick: 'all' }, { signal: 'COMPLETE' }],
    });
    const result = await fixture.run({ completion: 'keep' });
    expect(result.exitCode).toBe(0);
    const events = result.events();
    expect(outOfScope(events).map((e) => e.edits)).toEqual([
      [
        { kind: 'unticked', storyId: '1', taskId: '1.1' },
        { kind: 'edited', storyId: '3', taskId: '3.1' },
        { kind: 'removed', storyId: '3', taskId: '3.2' },
        { kind: 'story-added', storyId: '4', taskId: null },
      ],
    ]);
    // Story 2's checkpoint: story 1 still done, story 3 as it was, no story 4.
    expect(tasksAt(fixture, 'HEAD~1')).toBe(
      afterStory1.replace('- [ ] 2.1', '- [x] 2.1').replace('- [ ] 2.2', '- [x] 2.2'),
    );
    expect(ofType(events, 'story.started').map((e) => e.storyId)).toEqual(['1', '2', '3']);
  });

  it("rewording or removing the story's own tasks fails the attempt (tasks-edited)", async () => {
    fixture = new LoopHarness(CHANGE, stories(1, 2));
    const original = tasksNow(fixture);
    const reworded = original
      .replace('- [ ] 1.1 do thing 1 of story 1', '- [x] 1.1 nothing to do')
      .replace('- [ ] 1.2', '- [x] 1.2');
    const removed = original.replace(/- \[ \] 1\.2 .*\n/, '').replace('- [ ] 1.1', '- [x] 1.1');
    fixture.scenario({
      '1-1': [{ write: TASKS, content: reworded }, { signal: 'COMPLETE' }],
      '1-2': [{ write: TASKS, content: removed }, { signal: 'COMPLETE' }],
      '1-3': [{ tick: 'all' }, { signal: 'COMPLETE' }],
    });
    const result = await fixture.run({ completion: 'keep' });
    expect(result.exitCode).toBe(0);
    const failures = ofType(result.events(), 'attempt.failed');
    expect(failures.map((f) => f.kind)).toEqual(['tasks-edited', 'tasks-edited']);
    expect(failures[0]?.reason).toContain('reworded 1.1');
    expect(failures[1]?.reason).toContain('removed 1.2');
    expect(fixture.prompt('1', 2)).toContain("changed its own story's tasks");
  });
});
