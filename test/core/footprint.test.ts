import { describe, expect, it } from 'vitest';
import {
  footprintOf,
  footprintOverlap,
  pathsNamedIn,
  pickNextChange,
  type Footprint,
} from '../../src/core/footprint.js';

describe('pathsNamedIn: the paths a change text names', () => {
  it('takes paths with a slash and a file ending, folders, file names and quoted paths', () => {
    expect(
      pathsNamedIn(
        [
          'Move the parser to `src/parse/index.ts` and update ./lib/util.js.',
          'Tests live in test/parse/, config in package.json; `scripts/build` too.',
          '- [ ] 1.1 Edit src/app.py:',
        ].join('\n'),
      ),
    ).toEqual([
      'lib/util.js',
      'package.json',
      'scripts/build',
      'src/app.py',
      'src/parse/index.ts',
      'test/parse/',
    ]);
  });

  it('leaves out prose, URLs, product names, absolute and outside paths and the OpenSpec folders', () => {
    expect(
      pathsNamedIn(
        [
          'Input and/or output, read/write access, client/server.',
          'See https://example.com/docs/guide.md and http://host/a/b.ts.',
          'Works on Node.js and Vue.js; e.g. i.e. v1.2.3.',
          'Not /etc/passwd.conf, ~/notes.md or ../other/file.ts.',
          'The tasks in openspec/changes/x/tasks.md, the spec openspec/specs/auth/spec.md.',
        ].join('\n'),
      ),
    ).toEqual([]);
  });
});

describe('footprintOverlap: what two footprints share', () => {
  const fp = (...paths: string[]): Footprint => new Set(paths);

  it('the same path, a path under a folder the other names, a file name at any depth', () => {
    expect(footprintOverlap(fp('src/a.ts'), fp('src/a.ts', 'src/b.ts'))).toEqual(['src/a.ts']);
    expect(footprintOverlap(fp('src/auth/'), fp('src/auth/login.ts'))).toEqual([
      'src/auth/login.ts',
    ]);
    expect(footprintOverlap(fp('src/auth/login.ts'), fp('src/auth/'))).toEqual([
      'src/auth/login.ts',
    ]);
    expect(footprintOverlap(fp('package.json'), fp('web/package.json'))).toEqual([
      'web/package.json',
    ]);
  });

  it('nothing for neighbours: a sibling, a longer name, a folder name as a prefix of a file', () => {
    expect(footprintOverlap(fp('src/a.ts'), fp('src/ab.ts', 'lib/a.tsx'))).toEqual([]);
    expect(footprintOverlap(fp('src/auth/'), fp('src/authz.ts', 'src/auth'))).toEqual([]);
    expect(footprintOverlap(fp(), fp('src/a.ts'))).toEqual([]);
  });

  it('footprintOf adds the files earlier attempts touched, without the OpenSpec folder', () => {
    expect([
      ...footprintOf(['Edit `src/a.ts`.'], ['src/b.ts', 'openspec/changes/x/tasks.md']),
    ]).toEqual(['src/a.ts', 'src/b.ts']);
  });
});

describe('pickNextChange: which waiting change starts next', () => {
  const footprints = new Map<string, Footprint>([
    ['alpha', new Set(['src/shared.ts'])],
    ['beta', new Set(['src/shared.ts', 'src/beta.ts'])],
    ['gamma', new Set(['src/gamma.ts'])],
    ['delta', new Set(['src/shared.ts'])],
  ]);

  it('the first waiting change that shares nothing; when all share, the first one, with what it shares', () => {
    expect(pickNextChange(['beta', 'gamma'], ['alpha'], footprints)).toEqual({
      change: 'gamma',
      overlap: null,
      passed: [{ change: 'beta', overlap: { with: 'alpha', paths: ['src/shared.ts'] } }],
    });
    expect(pickNextChange(['beta', 'delta'], ['alpha'], footprints)).toEqual({
      change: 'beta',
      overlap: { with: 'alpha', paths: ['src/shared.ts'] },
      passed: [],
    });
    expect(pickNextChange([], ['alpha'], footprints)).toBeNull();
    expect(pickNextChange(['beta'], [], footprints)?.overlap).toBeNull();
  });
});
