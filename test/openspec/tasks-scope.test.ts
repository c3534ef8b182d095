import { describe, expect, it } from 'vitest';
import { parseTasks } from '../../src/openspec/tasks.js';
import { compareTasks, restoreOutside } from '../../src/openspec/tasks-scope.js';

const md = (...lines: string[]): string => `${lines.join('\n')}\n`;

const CHECKPOINT = md(
  '# Tasks',
  '',
  '## 1. Setup',
  '- [x] 1.1 Add the dependency',
  '- [x] 1.2 Wire it',
  '',
  '## 2. Parser',
  '- [ ] 2.1 Read the header',
  '- [ ] 2.2 Read the body',
  '',
  '## 3. Output',
  '- [ ] 3.1 Print it',
  '  - [ ] 3.1.1 In colour',
);

/** Every task box of the text checked. */
const tickEverything = (text: string): string => text.replaceAll('[ ]', '[x]');

/** `id:done` of every task, story by story. */
function ticks(text: string): string[] {
  return parseTasks(text).flatMap((s) => s.tasks.map((t) => `${t.id}:${t.done ? 'x' : ' '}`));
}

describe('compareTasks: what an attempt did outside its story', () => {
  it('an attempt that ticks only its own tasks is in scope', () => {
    const after = CHECKPOINT.replace('- [ ] 2.1', '- [x] 2.1').replace('- [ ] 2.2', '- [x] 2.2');
    expect(compareTasks(CHECKPOINT, after, '2')).toEqual({ outside: [], ownBroken: [] });
  });

  it('ticks and un-ticks of other stories are named, each with its story', () => {
    const after = tickEverything(CHECKPOINT).replace('- [x] 1.2', '- [ ] 1.2');
    expect(compareTasks(CHECKPOINT, after, '2')).toEqual({
      outside: [
        { kind: 'unticked', storyId: '1', taskId: '1.2' },
        { kind: 'ticked', storyId: '3', taskId: '3.1' },
        { kind: 'ticked', storyId: '3', taskId: '3.1.1' },
      ],
      ownBroken: [],
    });
  });

  it("other stories' tasks reworded, removed or added, and stories removed, renamed or added", () => {
    const after = md(
      '# Tasks',
      '',
      '## 1. Set-up',
      '- [x] 1.1 Add the dependency, pinned',
      '',
      '## 2. Parser',
      '- [ ] 2.1 Read the header',
      '- [ ] 2.2 Read the body',
      '',
      '## 4. Extra',
      '- [ ] 4.1 Something new',
      '- [ ] 1.3 Sneaked in',
    );
    const scope = compareTasks(CHECKPOINT, after, '2');
    expect(scope.ownBroken).toEqual([]);
    expect(scope.outside).toEqual(
      expect.arrayContaining([
        { kind: 'story-renamed', storyId: '1', taskId: null },
        { kind: 'edited', storyId: '1', taskId: '1.1' },
        { kind: 'removed', storyId: '1', taskId: '1.2' },
        { kind: 'story-removed', storyId: '3', taskId: null },
        { kind: 'story-added', storyId: '4', taskId: null },
      ]),
    );
    expect(scope.outside).toHaveLength(5);
  });

  it("the story's own tasks reworded or removed break it; its own ticks and added tasks do not", () => {
    const reworded = CHECKPOINT.replace('2.1 Read the header', '2.1 Skip the header');
    expect(compareTasks(CHECKPOINT, reworded, '2').ownBroken).toEqual([
      { kind: 'edited', storyId: '2', taskId: '2.1' },
    ]);
    const removed = CHECKPOINT.replace('- [ ] 2.2 Read the body\n', '');
    expect(compareTasks(CHECKPOINT, removed, '2').ownBroken).toEqual([
      { kind: 'removed', storyId: '2', taskId: '2.2' },
    ]);
    const added = CHECKPOINT.replace(
      '- [ ] 2.2 Read the body',
      '- [x] 2.2 Read the body\n- [x] 2.3 Test it',
    );
    expect(compareTasks(CHECKPOINT, added, '2')).toEqual({ outside: [], ownBroken: [] });
  });

  it('unnumbered tasks are paired by position, so ticking one is a tick, not an edit', () => {
    const before = md('## 1. A', '- [ ] first', '## 2. B', '- [ ] second', '- [ ] third');
    const after = md('## 1. A', '- [x] first', '## 2. B', '- [x] second', '- [ ] third');
    expect(compareTasks(before, after, '1').outside).toEqual([
      { kind: 'ticked', storyId: '2', taskId: '2.1' },
    ]);
  });
});

describe('restoreOutside: the tasks.md an accepted attempt commits', () => {
  it('keeps the own story as the attempt left it and every other story as the checkpoint had it', () => {
    const after = tickEverything(CHECKPOINT)
      .replace(
        '- [x] 2.2 Read the body',
        '- [x] 2.2 Read the body\n- [x] 2.3 Test it\n\nNotes: done.',
      )
      .replace('## 3. Output', '## 3. Output (renamed)');
    const restored = restoreOutside(CHECKPOINT, after, '2');
    expect(restored).toBe(
      CHECKPOINT.replace(
        '- [ ] 2.1 Read the header\n- [ ] 2.2 Read the body\n',
        '- [x] 2.1 Read the header\n- [x] 2.2 Read the body\n- [x] 2.3 Test it\n\nNotes: done.\n',
      ),
    );
    expect(compareTasks(CHECKPOINT, restored, '2').outside).toEqual([]);
  });

  it('restores the tasks of the stories before and after, the first story and the last', () => {
    for (const id of ['1', '2', '3']) {
      const restored = restoreOutside(CHECKPOINT, tickEverything(CHECKPOINT), id);
      expect(compareTasks(CHECKPOINT, restored, id).outside).toEqual([]);
      const own = parseTasks(restored).find((s) => s.id === id);
      expect(own?.done).toBe(true);
      for (const other of parseTasks(restored).filter((s) => s.id !== id)) {
        expect(other).toEqual(parseTasks(CHECKPOINT).find((s) => s.id === other.id));
      }
    }
  });

  it('a deleted heading that merges the next story into its own falls back to carrying its ticks', () => {
    const after = tickEverything(CHECKPOINT).replace('## 3. Output\n', '');
    const restored = restoreOutside(CHECKPOINT, after, '2');
    expect(ticks(restored)).toEqual(['1.1:x', '1.2:x', '2.1:x', '2.2:x', '3.1: ', '3.1.1: ']);
    expect(restored.split('\n')).toHaveLength(CHECKPOINT.split('\n').length);
  });

  it('tasks written before any heading (story 0) are a story like the others', () => {
    const before = md('- [ ] 0.1 loose task', '## 1. A', '- [ ] 1.1 a');
    const restored = restoreOutside(before, tickEverything(before), '0');
    expect(ticks(restored)).toEqual(['0.1:x', '1.1: ']);
  });

  it('keeps CRLF line ends, the byte-order mark and a missing final newline', () => {
    const before = '\uFEFF## 1. A\r\n- [ ] 1.1 a\r\n## 2. B\r\n- [ ] 2.1 b';
    const restored = restoreOutside(before, tickEverything(before), '1');
    expect(restored).toBe('\uFEFF## 1. A\r\n- [x] 1.1 a\r\n## 2. B\r\n- [ ] 2.1 b');
  });
});
