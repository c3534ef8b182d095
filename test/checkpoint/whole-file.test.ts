import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileWhole } from '../../src/checkpoint/whole-file.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/**
 * Deletes `folder` each time it appears, `times` times, checking between every turn of the
 * event loop — as an agent's `rm -rf .git/ralphtool` lands between the steps of a write.
 */
function deleteWhenItAppears(folder: string, times: number): { deleted: () => number } {
  let deleted = 0;
  const check = (): void => {
    if (existsSync(folder)) {
      rmSync(folder, { recursive: true, force: true });
      deleted += 1;
    }
    if (deleted < times) setImmediate(check);
  };
  setImmediate(check);
  return { deleted: () => deleted };
}

describe('writeFileWhole', () => {
  it.each([1, 2])(
    'writes the file whole when its folder is deleted %i time(s) while it writes',
    async (times) => {
      const root = mkdtempSync(join(tmpdir(), 'ralphtool-whole-'));
      dirs.push(root);
      const folder = join(root, 'ralphtool', 'change');
      const file = join(folder, 'state.json');
      const deleter = deleteWhenItAppears(join(root, 'ralphtool'), times);
      // Written until the deleter is done: each write either finished before a deletion (its
      // file then gone with the folder) or was cut by it and started again.
      while (deleter.deleted() < times) await writeFileWhole(file, '{"whole":true}\n');
      await writeFileWhole(file, '{"whole":true}\n');
      expect(readFileSync(file, 'utf8')).toBe('{"whole":true}\n');
    },
  );
});
