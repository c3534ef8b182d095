import { describe, expect, it } from 'vitest';
import { renderMergeReport } from '../../src/cli/render/merge-report.js';

describe('renderMergeReport: the merge check as plain lines', () => {
  it('gives the order in which the branches apply', () => {
    expect(
      renderMergeReport({
        against: 'main',
        checked: ['add-a', 'add-b'],
        conflicts: [],
        order: ['add-b', 'add-a'],
      }),
    ).toEqual(['merge check against main: add-a, add-b apply cleanly in this order: add-b, add-a']);
  });

  it('says a single branch applies, and when no branch has anything to apply', () => {
    expect(
      renderMergeReport({ against: 'main', checked: ['add-a'], conflicts: [], order: ['add-a'] }),
    ).toEqual(['merge check against main: add-a applies cleanly']);
    expect(renderMergeReport({ against: 'dev', checked: [], conflicts: [], order: [] })).toEqual([
      'merge check against dev: no branch has a story to apply',
    ]);
  });

  it('names each colliding pair with its files and the way to merge by hand', () => {
    const lines = renderMergeReport({
      against: 'main',
      checked: ['add-a', 'add-b', 'add-c'],
      conflicts: [
        { a: 'add-b', b: 'main', files: ['src/lib.ts'] },
        { a: 'add-a', b: 'add-c', files: ['src/app.ts', 'README.md'] },
      ],
      order: null,
    });
    expect(lines).toEqual([
      'merge check against main: add-a, add-b, add-c checked, 2 conflicts',
      'add-b conflicts with your work tree (main) in src/lib.ts: commit or stash your changes, then merge it by hand (`git merge --squash ralph/add-b`)',
      'add-a and add-c conflict in src/app.ts, README.md: apply one, then merge the other by hand',
    ]);
  });

  it('counts the files past the first five and keeps hostile names on one line', () => {
    const files = ['a', 'b', 'c', 'd', 'e', 'f', 'g'].map((f) => `${f}.txt`);
    const [, line] = renderMergeReport({
      against: 'main',
      checked: ['x', 'y'],
      conflicts: [{ a: 'x', b: 'y', files: [...files.slice(0, 6), 'evil\nname\u001b[2J.txt'] }],
      order: null,
    });
    expect(line).toBe(
      'x and y conflict in a.txt, b.txt, c.txt, d.txt, e.txt and 2 more files: apply one, then merge the other by hand',
    );
    const [, hostile] = renderMergeReport({
      against: 'main',
      checked: ['x', 'y'],
      conflicts: [{ a: 'x', b: 'y', files: ['evil\nname\u001b[2J.txt'] }],
      order: null,
    });
    expect(hostile).not.toContain('\n');
    expect(hostile).not.toContain('\u001b');
  });

  it('says when each branch applies alone but not all together', () => {
    expect(
      renderMergeReport({ against: 'main', checked: ['x', 'y'], conflicts: [], order: null }),
    ).toEqual([
      'merge check against main: x, y each apply cleanly alone, not all together in any order: apply one at a time and merge the rest by hand',
    ]);
  });
});
