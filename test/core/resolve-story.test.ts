import { describe, expect, it } from 'vitest';
import {
  appendResolveStory,
  hasConflictMarkers,
  markersLeftReason,
  RESOLVE_STORY_TITLE,
  resolveStoryId,
} from '../../src/core/resolve-story.js';
import { parseTasks } from '../../src/openspec/tasks.js';

// --resolve-conflicts (docs/contract.md, "Bringing a colliding change home"): the story appended
// to tasks.md is read back as one more story with one open task, whatever the file looked like,
// and its id is never one a story has.

const SHAPES: Record<string, string> = {
  numbered: '## 1. One\n\n- [x] 1.1 Do it\n\n## 2. Two\n\n- [x] 2.1 Do that\n',
  'no final newline': '## 1. One\n\n- [x] 1.1 Do it',
  'blank lines after': '## 1. One\n\n- [x] 1.1 Do it\n\n\n',
  'numbers skipped': '## 3. Three\n\n- [x] 3.1 Do it\n\n## 7. Seven\n\n- [x] 7.1 Do that\n',
  'unnumbered headings': '## Setup\n\n- [x] Do it\n\n## Wire\n\n- [x] Do that\n',
  'tasks before any heading': '- [x] 1.1 Do it\n\n## 1. One\n\n- [x] 1.2 Do that\n',
  'sub-numbered': '## 1. One\n\n- [x] 1.1 Do it\n\n## 1.2 Part\n\n- [x] 1.2.1 More\n',
  empty: '',
};

describe('the resolve story appended to tasks.md', () => {
  for (const [shape, tasks] of Object.entries(SHAPES)) {
    it(`${shape}: read back as one more story, with a fresh id and one open task`, () => {
      const before = parseTasks(tasks);
      const id = resolveStoryId(before.map((s) => s.id));
      expect(before.map((s) => s.id)).not.toContain(id);
      const after = parseTasks(appendResolveStory(tasks, id, ['src/a.ts', 'b c.md'], 'main'));
      expect(after.slice(0, before.length)).toEqual(before);
      expect(after).toHaveLength(before.length + 1);
      const story = after[after.length - 1];
      expect(story).toMatchObject({ id, title: RESOLVE_STORY_TITLE, done: false });
      expect(story?.tasks).toHaveLength(1);
      expect(story?.tasks[0]?.description).toContain('`src/a.ts`, `b c.md`');
    });
  }
});

describe('conflict markers', () => {
  it('the lines git writes around a conflict count; a heading underline or a quote does not', () => {
    expect(hasConflictMarkers('a\n<<<<<<< ours\nx\n=======\ny\n>>>>>>> theirs\n')).toBe(true);
    expect(hasConflictMarkers('<<<<<<<\n')).toBe(true);
    expect(hasConflictMarkers('x\n>>>>>>> 1a2b3c\n')).toBe(true);
    expect(hasConflictMarkers('Title\n=======\n')).toBe(false);
    expect(hasConflictMarkers('see `<<<<<<< ours` in the docs\n')).toBe(false);
    expect(hasConflictMarkers('<<<<<<<< eight\n')).toBe(false);
    expect(hasConflictMarkers('')).toBe(false);
  });

  it('the reason names five files, then a count', () => {
    const files = ['a', 'b', 'c', 'd', 'e', 'f', 'g'];
    expect(markersLeftReason(files)).toBe(
      'conflict markers are left in a, b, c, d, e and 2 more: resolve every conflict and remove the marker lines',
    );
  });
});
