import { chmodSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_SUCCEED, FaultWorld } from './support/world.js';
import { gitIn, treeFingerprint } from './support/ways-out.js';

// Class 5, "check before acting": a work tree git cannot commit is refused before the start
// moves HEAD (exit 2, one line naming the cause), not found after `checkout -B`, where it
// used to leave the user on ralph/<change> with a run that could neither start nor clean up.

const CHANGE = 'start-check';
const isRoot = typeof process.getuid === 'function' && process.getuid() === 0;

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

interface Obstacle {
  name: string;
  /** Puts the obstacle in the world's work tree; returns a word the refusal must name. */
  make: (w: FaultWorld) => string;
}

const OBSTACLES: Obstacle[] = [
  {
    name: 'a nested repository without a commit',
    make: (w) => {
      mkdirSync(path.join(w.dir, 'vendor/lib'), { recursive: true });
      gitIn(path.join(w.dir, 'vendor/lib'), 'init', '-q');
      w.write('vendor/lib/README', 'not committed in the nested repository\n');
      return 'vendor/lib';
    },
  },
  {
    name: 'a required clean filter that fails',
    make: (w) => {
      w.git('config', 'filter.broken.clean', 'false');
      w.git('config', 'filter.broken.required', 'true');
      w.write('.gitattributes', '*.dat filter=broken\n');
      w.write('data/blob.dat', 'data\n');
      return 'filter';
    },
  },
  {
    name: 'a required clean filter whose program does not exist',
    make: (w) => {
      w.git('config', 'filter.gone.clean', '/nonexistent/ralphtool-test-filter');
      w.git('config', 'filter.gone.required', 'true');
      w.write('docs/.gitattributes', 'draft.md filter=gone\n');
      return 'filter';
    },
  },
  {
    name: 'a required long-running filter process that fails',
    make: (w) => {
      w.git('config', 'filter.proc.process', 'false');
      w.git('config', 'filter.proc.required', 'true');
      w.write('.gitattributes', 'notes/* filter=proc\n');
      return 'filter';
    },
  },
];

describe('start refuses a work tree git cannot commit, before touching anything', () => {
  it.each(OBSTACLES)('$name: exit 2, one line, HEAD/index/files/branches as before', async (o) => {
    world = new FaultWorld(CHANGE, 1).scenario(ALL_SUCCEED);
    const w = world;
    const word = o.make(w);
    const before = treeFingerprint(w.dir);
    const result = await w.loop('run');
    expect(result.exitCode, result.stderr).toBe(2);
    const lines = result.stderr.trim().split('\n');
    expect(lines, result.stderr).toHaveLength(1);
    expect(lines[0]).toContain('did not start and nothing was changed');
    expect(lines[0]).toContain(word);
    expect(result.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(treeFingerprint(w.dir)).toEqual(before);
    expect(w.branchExists(w.branch)).toBe(false);
    expect(w.userFilesChanged()).toEqual([]);
    expect(existsSync(w.stateFile)).toBe(false);
    expect(w.invoked('1', 1)).toBe(false);
    // No run is recorded, so nothing is left to get out of.
    const status = await w.statusJson();
    expect(status.runs).toEqual([]);
  });

  it.skipIf(isRoot)('an unreadable file: exit 2, nothing touched', async () => {
    world = new FaultWorld(CHANGE, 1).scenario(ALL_SUCCEED);
    const w = world;
    w.write('notes/locked.txt', 'mine\n');
    chmodSync(path.join(w.dir, 'notes/locked.txt'), 0o000);
    try {
      const before = treeFingerprint(w.dir);
      const result = await w.loop('run');
      expect(result.exitCode, result.stderr).toBe(2);
      expect(result.stderr).toContain('notes/locked.txt');
      expect(treeFingerprint(w.dir)).toEqual(before);
      expect(w.branchExists(w.branch)).toBe(false);
    } finally {
      chmodSync(path.join(w.dir, 'notes/locked.txt'), 0o644);
    }
  });

  it('once the obstacle is gone, the same command starts and completes the run', async () => {
    world = new FaultWorld(CHANGE, 1).scenario(ALL_SUCCEED);
    const w = world;
    OBSTACLES[0]!.make(w);
    expect((await w.loop('run')).exitCode).toBe(2);
    w.write('.git/info/exclude', 'vendor/\n');
    const result = await w.loop('run');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.subjects(`main..${w.branch}`)).toEqual(['initial state', 'checkpoint: 1']);
    expect(w.userFilesChanged()).toEqual([]);
  });
});
