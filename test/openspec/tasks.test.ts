import { describe, expect, it } from 'vitest';
import type { Story } from '../../src/core/change.js';
import { parseTasks } from '../../src/openspec/tasks.js';

const md = (...lines: string[]): string => lines.join('\n');

/** Compact view: `id title: task ids`. */
function outline(stories: readonly Story[]): string[] {
  return stories.map((s) => `${s.id} ${s.title}: ${s.tasks.map((t) => t.id).join(' ')}`);
}

describe('parseTasks: heading styles', () => {
  it('reads `## 1. Title` stories, strips the number from the title and keeps task tokens', () => {
    const stories = parseTasks(
      md(
        '# Tasks',
        '',
        '## 1. Setup',
        '- [x] 1.1 Add the dependency',
        '- [ ] 1.2 Wire it',
        '',
        '## 2. Build',
        '- [ ] 2.1 Compile',
      ),
    );
    expect(outline(stories)).toEqual(['1 Setup: 1.1 1.2', '2 Build: 2.1']);
    expect(stories[0]).toMatchObject({ line: 3, done: false });
    expect(stories[0]?.tasks[0]).toEqual({
      id: '1.1',
      description: 'Add the dependency',
      done: true,
      line: 4,
      depth: 0,
    });
  });

  it('reads `## 1) Title` as story 1', () => {
    expect(
      outline(parseTasks(md('## 1) CLI wiring', '- [x] Add it', '## 2) Tests', '- [ ] Test it'))),
    ).toEqual(['1 CLI wiring: 1.1', '2 Tests: 2.1']);
  });

  it('reads dotted story numbers such as `## 2.1 Title`', () => {
    expect(
      outline(parseTasks(md('## 2.1 Sub part', '- [ ] a', '## 2.2. Next', '- [ ] b'))),
    ).toEqual(['2.1 Sub part: 2.1.1', '2.2 Next: 2.2.1']);
  });

  it('gives `## Phase 1: Title` its position: the heading does not start with a number', () => {
    const stories = parseTasks(
      md('# Plan', '## Phase 1: Foundation', '- [x] a', '## Phase 2: Polish', '- [ ] b'),
    );
    expect(outline(stories)).toEqual(['1 Phase 1: Foundation: 1.1', '2 Phase 2: Polish: 2.1']);
  });

  it('uses `###` headings as stories when the first task sits under one', () => {
    const stories = parseTasks(
      md(
        '## Tasks',
        '',
        '### Core',
        '- [x] one',
        '### Skill Template',
        '- [x] two',
        '- [ ] three',
        '### Design Decision',
        'prose only',
      ),
    );
    expect(outline(stories)).toEqual(['1 Core: 1.1', '2 Skill Template: 2.1 2.2']);
  });

  it('numbers plain `## Title` stories by position', () => {
    expect(outline(parseTasks(md('## Design', '- [x] a', '## Build', '- [ ] b')))).toEqual([
      '1 Design: 1.1',
      '2 Build: 2.1',
    ]);
  });
});

describe('parseTasks: grouping', () => {
  it('puts every task of a file without headings into story 0 "Tasks"', () => {
    const stories = parseTasks(md('- [ ] a', '- [x] b', '  - [ ] c'));
    expect(outline(stories)).toEqual(['0 Tasks: 0.1 0.2 0.3']);
    expect(stories[0]?.line).toBe(0);
  });

  it('keeps tasks before the first heading in story 0 and still groups the rest', () => {
    const stories = parseTasks(
      md('- [ ] early', '# Title', '## 1. Setup', '- [ ] 1.1 a', '## 2. Build', '- [ ] 2.1 b'),
    );
    expect(outline(stories)).toEqual(['0 Tasks: 0.1', '1 Setup: 1.1', '2 Build: 2.1']);
  });

  it('does not split a story at deeper headings inside it', () => {
    const stories = parseTasks(
      md(
        '## 1. Setup',
        '- [ ] 1.1 a',
        '### Details',
        '- [ ] 1.2 b',
        '#### More',
        '- [ ] 1.3 c',
        '## 2. Next',
        '- [ ] 2.1 d',
      ),
    );
    expect(outline(stories)).toEqual(['1 Setup: 1.1 1.2 1.3', '2 Next: 2.1']);
  });

  it('starts a new group at a shallower heading than the story level', () => {
    const stories = parseTasks(md('## 1. Setup', '- [ ] 1.1 a', '# Appendix', '- [ ] stray'));
    expect(outline(stories)).toEqual(['1 Setup: 1.1', '2 Appendix: 2.1']);
  });

  it('takes the story level from the first task that has a heading above it', () => {
    const stories = parseTasks(
      md('## A', '### A1', '- [ ] x', '### A2', '- [ ] y', '## B', '- [ ] z'),
    );
    expect(outline(stories)).toEqual(['1 A1: 1.1', '2 A2: 2.1', '3 B: 3.1']);
  });

  it('drops headings with no task, never tasks', () => {
    const stories = parseTasks(
      md('## Goals', 'text', '## 1. Do', '- [ ] 1.1 a', '## Notes', 'prose'),
    );
    expect(outline(stories)).toEqual(['1 Do: 1.1']);
  });

  it('keeps nested tasks in their parent story with their depth', () => {
    const stories = parseTasks(
      md(
        '## 1. Core',
        '- [x] 1.1 parent',
        '  - [x] 1.1.1 child',
        '    - [ ] grandchild',
        '- [ ] 1.2 next',
        '## 2. Other',
        '- [ ] 2.1 x',
      ),
    );
    expect(stories[0]?.tasks.map((t) => [t.id, t.depth])).toEqual([
      ['1.1', 0],
      ['1.1.1', 1],
      ['1.3', 2],
      ['1.2', 0],
    ]);
  });

  it('gives unnumbered sub-tasks ids that never shadow a real task number', () => {
    const stories = parseTasks(
      md(
        '## 2. Migrate',
        '- [x] 2.1 Convert',
        '  - [x] Create spec',
        '  - [x] Delete patches',
        '- [x] 2.2 Test',
      ),
    );
    expect(stories[0]?.tasks.map((t) => t.id)).toEqual(['2.1', '2.3', '2.4', '2.2']);
  });

  it('reads ordered-list tasks (`1.` and `1)`)', () => {
    const stories = parseTasks(md('## Work', '1. [ ] first', '2) [x] second', '10. [ ] 1.3 third'));
    expect(stories[0]?.tasks.map((t) => [t.id, t.description, t.done])).toEqual([
      ['1.1', 'first', false],
      ['1.2', 'second', true],
      ['1.3', 'third', false],
    ]);
  });

  it('keeps a suffixed token such as `3.6a` as the task id', () => {
    expect(
      parseTasks(md('## 3. X', '- [x] 3.6 a', '- [x] 3.6a b'))[0]?.tasks.map((t) => t.id),
    ).toEqual(['3.6', '3.6a']);
  });
});

describe('parseTasks: ids', () => {
  it('gives a clashing story number to the first story and its position to the later one', () => {
    expect(outline(parseTasks(md('## 1. A', '- [ ] a', '## 1. B', '- [ ] b')))).toEqual([
      '1 A: 1.1',
      '2 B: 2.1',
    ]);
  });

  it('moves a numbered story off an id already taken by position', () => {
    expect(outline(parseTasks(md('## Intro', '- [ ] a', '## 1. Setup', '- [ ] b')))).toEqual([
      '1 Intro: 1.1',
      '2 Setup: 2.1',
    ]);
  });

  it('keeps ids unique when the position is taken too', () => {
    const ids = parseTasks(md('## 2. A', '- [ ] a', '## B', '- [ ] b', '## 3. C', '- [ ] c')).map(
      (s) => s.id,
    );
    expect(ids).toEqual(['2', '2-2', '3']);
  });

  it('does not let `## 0.` take the id of the leading story', () => {
    expect(outline(parseTasks(md('- [ ] early', '## 0. Zero', '- [ ] 0.1 z')))).toEqual([
      '0 Tasks: 0.2',
      '1 Zero: 0.1',
    ]);
  });
});

describe('parseTasks: checkboxes and text', () => {
  it('reads `[ ]`, `[x]`, `[X]`, `[~]` and `[]`, done only for x/X', () => {
    const stories = parseTasks(md('## S', '- [ ] a', '- [x] b', '- [X] c', '- [~] d', '- [] e'));
    expect(stories[0]?.tasks.map((t) => t.done)).toEqual([false, true, true, false, false]);
    expect(stories[0]?.done).toBe(false);
  });

  it('marks a story done when every task is checked', () => {
    const stories = parseTasks(
      md('## 1. A', '- [x] 1.1 a', '- [X] 1.2 b', '## 2. B', '- [x] 2.1 c', '- [ ] 2.2 d'),
    );
    expect(stories.map((s) => s.done)).toEqual([true, false]);
  });

  it('ignores headings inside code fences but still counts the task lines there', () => {
    const stories = parseTasks(
      md(
        '## 1. Real',
        '- [ ] 1.1 a',
        '```markdown',
        '## 9. Example',
        '- [ ] example task',
        '```',
        '- [ ] 1.2 b',
      ),
    );
    expect(outline(stories)).toEqual(['1 Real: 1.1 1.3 1.2']);
  });

  it('strips a BOM and CRLF line ends from titles and descriptions', () => {
    const stories = parseTasks('\ufeff## 1. Setup\r\n- [x] 1.1 Add it\r\n  - [ ] nested\r\n');
    expect(stories[0]?.title).toBe('Setup');
    expect(stories[0]?.tasks.map((t) => [t.description, t.line, t.depth])).toEqual([
      ['Add it', 2, 0],
      ['nested', 3, 1],
    ]);
  });

  it('treats a lone CR as part of the line, like OpenSpec', () => {
    expect(parseTasks('- [ ] a\r- [ ] b')[0]?.tasks).toHaveLength(1);
  });

  it('returns no stories for an empty file or one without tasks', () => {
    expect(parseTasks('')).toEqual([]);
    expect(parseTasks(md('# Title', 'prose', '- item'))).toEqual([]);
  });

  it('strips a closing `#` run from a heading title', () => {
    expect(parseTasks(md('## 1. Setup ##', '- [ ] a'))[0]?.title).toBe('Setup');
  });
});
