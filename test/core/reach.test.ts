import { describe, expect, it } from 'vitest';
import { ON_PATH, reachable, reachOf } from '../../src/core/reach.js';

const npx = reachOf({ ralphtoolOnPath: false, viaPackageRunner: true, openspecOnPath: false });

describe('commands named the way the user can reach them', () => {
  it('says npx ralphtool only when ralphtool came through npx and is not on PATH', () => {
    const of = (ralphtoolOnPath: boolean, viaPackageRunner: boolean): string =>
      reachOf({ ralphtoolOnPath, viaPackageRunner, openspecOnPath: true }).ralphtool;
    expect(of(false, true)).toBe('npx ralphtool');
    expect(of(true, true)).toBe('ralphtool');
    expect(of(true, false)).toBe('ralphtool');
    // From a checkout (`node dist/cli/main.js`) nothing better is known.
    expect(of(false, false)).toBe('ralphtool');
  });

  it('names ralphtool by its path (for the demo) only when run from a checkout and on no PATH', () => {
    const of = (ralphtoolOnPath: boolean, viaPackageRunner: boolean): string | null | undefined =>
      reachOf({
        ralphtoolOnPath,
        viaPackageRunner,
        openspecOnPath: true,
        script: '/home/ann/my tools/ralphtool/dist/cli/main.js',
      }).byPath;
    expect(of(false, false)).toBe("node '/home/ann/my tools/ralphtool/dist/cli/main.js'");
    expect(of(true, false)).toBeNull();
    expect(of(false, true)).toBeNull();
    const byPath = { ...ON_PATH, ralphtool: 'node /opt/$&/main.js' };
    // A path is put in as it is, never read as a replacement pattern.
    expect(reachable('    ralphtool -C /tmp/d status', byPath)).toBe(
      '    node /opt/$&/main.js -C /tmp/d status',
    );
  });

  it('says npx @fission-ai/openspec when openspec is not on PATH', () => {
    const of = (openspecOnPath: boolean): string =>
      reachOf({ ralphtoolOnPath: true, viaPackageRunner: false, openspecOnPath }).openspec;
    expect(of(false)).toBe('npx @fission-ai/openspec');
    expect(of(true)).toBe('openspec');
  });

  it('rewrites every command ralphtool’s messages name, in every form they take', () => {
    const cases: [string, string][] = [
      [
        'continue it with `ralphtool resume add-x`',
        'continue it with `npx ralphtool resume add-x`',
      ],
      ['(see `ralphtool list`)', '(see `npx ralphtool list`)'],
      ['ralphtool finish add-x --cleanup|--keep', 'npx ralphtool finish add-x --cleanup|--keep'],
      [
        'ralphtool resume x   (or end it: ralphtool finish x --cleanup|--keep)',
        'npx ralphtool resume x   (or end it: npx ralphtool finish x --cleanup|--keep)',
      ],
      ['line one\n  ralphtool doctor  checks', 'line one\n  npx ralphtool doctor  checks'],
      ['  3. ralphtool doctor  checks git', '  3. npx ralphtool doctor  checks git'],
      ['    ralphtool -C /tmp/d status', '    npx ralphtool -C /tmp/d status'],
      ['(or just `ralphtool` for the UI)', '(or just `npx ralphtool` for the UI)'],
      ['(run `ralphtool --help` for usage)', '(run `npx ralphtool --help` for usage)'],
      ['run `openspec init` there first', 'run `npx @fission-ai/openspec init` there first'],
      ['  openspec new change <name>', '  npx @fission-ai/openspec new change <name>'],
    ];
    for (const [said, meant] of cases) expect(reachable(said, npx)).toBe(meant);
  });

  it('leaves the name alone where it is no command', () => {
    for (const text of [
      'ralphtool: unknown change "x"',
      'ralphtool runs only the user’s --verify commands',
      'set OpenSpec up with `npx @fission-ai/openspec init`',
      'ralph/add-x: a ralphtool run branch with no active run',
      'the branch of a ralphtool run (interrupted)',
      '`myralphtool list`',
      'no openspec/ folder found',
    ]) {
      expect(reachable(text, npx)).toBe(text);
    }
    expect(reachable('`ralphtool resume x`, `openspec init`', ON_PATH)).toBe(
      '`ralphtool resume x`, `openspec init`',
    );
  });
});
