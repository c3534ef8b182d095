import { randomBytes } from 'node:crypto';
import { chmodSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { diffSnapshots, snapshotPaths } from './support/snapshot.js';
import { FaultWorld } from './support/world.js';

// Row 9: huge, binary and oddly named files through start, accept, revert and cleanup. The
// user brings odd files of their own (uncommitted); the agent's first attempt swaps files and
// directories, renames by case only, adds newlines to names, symlinks out of the repository,
// drops an executable bit and truncates a 100 MB file, then fails; the second attempt
// completes with odd files of its own.

const CHANGE = 'odd-files';
const ODD_AGENT = path.resolve('test/system/faults/support/odd-agent.mjs');
const BIG = 100 * 1024 * 1024;
const USER_ODD = [
  'odd dir/file with spaces.txt',
  'ünïcödé/файл-名前.txt',
  'weird\nname.txt',
  'link-to-stable',
  'docs/stable.md',
  'big/blob.bin',
];

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

function oddWorld(): FaultWorld {
  world = new FaultWorld(CHANGE, 1);
  const w = world;
  w.write('odd dir/file with spaces.txt', 'spaces\n');
  w.write('ünïcödé/файл-名前.txt', 'unicode\n');
  w.write('weird\nname.txt', 'newline\n');
  symlinkSync('docs/stable.md', path.join(w.dir, 'link-to-stable'));
  chmodSync(path.join(w.dir, 'docs/stable.md'), 0o755);
  // Random bytes do not compress: the test repository stores objects as they are, so the
  // 100 MB file costs disk writes, not seconds of zlib (ralphtool never sets compression).
  w.git('config', 'core.looseCompression', '0');
  w.git('config', 'core.compression', '0');
  w.write('big/blob.bin', randomBytes(BIG));
  w.rebaseline();
  return w;
}

/** `<mode> <type> <sha> <size>\t<path>` of one path in a commit, or '' when absent. */
function entry(w: FaultWorld, rev: string, file: string): { mode: string; size: number } | null {
  const out = w.git('ls-tree', '-l', '-z', rev, '--', file).split('\0')[0] ?? '';
  if (out === '') return null;
  const [meta = ''] = out.split('\t');
  const [mode = '', , , size = '0'] = meta.split(/\s+/);
  return { mode, size: Number(size) };
}

describe('odd files through the whole protocol', () => {
  it(
    'keep: the initial state, the saved failed attempt and the checkpoint hold them exactly',
    { timeout: 300_000 },
    async () => {
      const w = oddWorld();
      const userBefore = snapshotPaths(w.dir, USER_ODD);
      const result = await w.loop('run', ['--command-timeout', '240'], { agent: ODD_AGENT });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(w.subjects(`main..${w.branch}`)).toEqual(['initial state', 'checkpoint: 1']);

      const base = `${w.branch}~1`;
      expect(entry(w, base, 'link-to-stable')?.mode).toBe('120000');
      expect(entry(w, base, 'docs/stable.md')?.mode).toBe('100755');
      expect(entry(w, base, 'big/blob.bin')?.size).toBe(BIG);
      expect(entry(w, base, 'weird\nname.txt')).not.toBeNull();
      expect(entry(w, base, 'ünïcödé/файл-名前.txt')).not.toBeNull();

      const saved = `refs/ralphtool/${CHANGE}/attempts/1-1`;
      expect(entry(w, saved, 'src/app.txt/inner.txt')).not.toBeNull();
      expect(entry(w, saved, 'odd dir')?.mode).toBe('100644');
      expect(entry(w, saved, 'readme.md')).not.toBeNull();
      expect(entry(w, saved, 'README.md')).toBeNull();
      expect(entry(w, saved, 'new\nfile.txt')).not.toBeNull();
      expect(entry(w, saved, 'escape')?.mode).toBe('120000');
      expect(w.git('cat-file', '-p', `${saved}:escape`)).toBe('/etc/passwd');
      expect(entry(w, saved, 'bin/tool.sh')?.mode).toBe('100644');
      expect(entry(w, saved, 'big/blob.bin')?.size).toBe(10);

      const tip = w.branch;
      expect(entry(w, tip, 'Readme.md')).not.toBeNull();
      expect(entry(w, tip, 'README.md')).toBeNull();
      expect(entry(w, tip, 'src/app.txt')?.mode).toBe('040000');
      expect(entry(w, tip, 'latest')?.mode).toBe('120000');
      expect(entry(w, tip, 'src/run.sh')?.mode).toBe('100755');
      expect(entry(w, tip, '数据/ß.txt')).not.toBeNull();
      expect(entry(w, tip, 'odd dir/file with spaces.txt')).not.toBeNull();
      expect(entry(w, tip, 'bin/tool.sh')?.mode).toBe('100755');
      expect(entry(w, tip, 'big/blob.bin')?.size).toBe(BIG);
      expect(w.exists('escape')).toBe(false);
      expect(w.exists('new\nfile.txt')).toBe(false);

      expect(w.status()).toEqual([]);
      expect(diffSnapshots(userBefore, snapshotPaths(w.dir, USER_ODD))).toEqual([]);
      expect(w.userFilesChanged()).toEqual([]);
    },
  );

  it(
    'cleanup: back on main with the user’s odd files byte-identical and the story’s files as changes',
    { timeout: 300_000 },
    async () => {
      const w = oddWorld();
      const mainBefore = w.sha('main');
      const userBefore = snapshotPaths(w.dir, USER_ODD);
      const result = await w.loop('run', ['--command-timeout', '240'], {
        agent: ODD_AGENT,
        onComplete: 'cleanup',
      });
      expect(result.exitCode, result.stderr).toBe(0);
      expect(w.currentBranch()).toBe('main');
      expect(w.sha('main')).toBe(mainBefore);
      expect(w.branchExists(w.branch)).toBe(false);
      expect(diffSnapshots(userBefore, snapshotPaths(w.dir, USER_ODD))).toEqual([]);
      expect(w.userFilesChanged()).toEqual([]);
      expect(w.read('src/app.txt/inner.txt')).toBe('was a file\n');
      expect(w.read('Readme.md')).toBe('# demo project\n');
      expect(w.exists('escape')).toBe(false);
      const status = w.git('status', '--porcelain', '-z', '--untracked-files=all').split('\0');
      expect(status).toContain(' D README.md');
      expect(status).toContain('?? 数据/ß.txt');
      expect(status).toContain(' M docs/stable.md');
    },
  );
});
