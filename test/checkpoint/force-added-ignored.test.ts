import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startRun } from '../../src/checkpoint/start.js';
import { makeRepo, runLocation } from '../git/helpers.js';
import type { TempRepo } from '../git/helpers.js';
import { NO_FIGURES } from '../../src/checkpoint/records.js';

const repos: TempRepo[] = [];
afterEach(() => {
  for (const made of repos.splice(0)) made.remove();
});

/** A repository whose user keeps ignored files: a secret and installed dependencies. */
function repoWithIgnoredFiles(): TempRepo {
  const r = makeRepo();
  repos.push(r);
  r.write('.gitignore', '.env\nnode_modules/\n');
  r.git('add', '.gitignore');
  r.git('commit', '-q', '-m', 'ignore rules');
  r.write('.env', 'SECRET=1\n');
  r.write('node_modules/dep/index.js', 'module.exports = 1;\n');
  return r;
}

describe('an agent that force-adds ignored files', () => {
  it('revert: the ignored files it committed stay on disk, byte for byte', async () => {
    const r = repoWithIgnoredFiles();
    const run = await startRun(runLocation(r.dir, 'add-auth'));
    r.git('add', '-f', '.env', 'node_modules');
    r.write('agent.txt', 'agent work\n');
    r.git('add', 'agent.txt');
    r.git('commit', '-q', '-m', 'agent commit');
    const { savedRef } = await run.revert('1', 1);
    expect(readFileSync(join(r.dir, '.env'), 'utf8')).toBe('SECRET=1\n');
    expect(readFileSync(join(r.dir, 'node_modules/dep/index.js'), 'utf8')).toBe(
      'module.exports = 1;\n',
    );
    // The attempt's own file is reverted (and saved), the tree is the checkpoint's.
    expect(r.git('status', '--porcelain')).toBe('');
    expect(r.git('show', `${savedRef}:agent.txt`)).toBe('agent work');
    expect(r.git('rev-parse', 'HEAD')).toBe(run.checkpointSha);
  });

  it('accept: the checkpoint never holds them, and they stay on disk', async () => {
    const r = repoWithIgnoredFiles();
    const run = await startRun(runLocation(r.dir, 'add-auth'));
    r.git('add', '-f', '.env');
    r.write('feature.txt', 'feature\n');
    r.git('add', 'feature.txt');
    r.git('commit', '-q', '-m', 'agent commit with a secret');
    const sha = await run.acceptStory('1', NO_FIGURES);
    const files = r.git('ls-tree', '-r', '--name-only', sha).split('\n');
    expect(files).toContain('feature.txt');
    expect(files).not.toContain('.env');
    expect(readFileSync(join(r.dir, '.env'), 'utf8')).toBe('SECRET=1\n');
    await run.cleanup({ outcome: 'complete' });
    expect(readFileSync(join(r.dir, '.env'), 'utf8')).toBe('SECRET=1\n');
    expect(readFileSync(join(r.dir, 'feature.txt'), 'utf8')).toBe('feature\n');
  });
});
