import { cp, mkdir, utimes } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { UsageError } from '../../src/core/errors.js';
import { changePaths, listChanges, readChange } from '../../src/openspec/changes.js';
import { findOpenSpecRoot } from '../../src/openspec/root.js';
import {
  FIXTURE_CHANGES,
  copyFixtureCorpus,
  fixtureChangeNames,
  makeTempDir,
  removeTempDir,
  writeTree,
} from './helpers.js';

let dir = '';
afterEach(async () => removeTempDir(dir));

/** A repository with the fixture's active changes, its archive and its loose files, as laid out by OpenSpec. */
async function fixtureRepo(): Promise<string> {
  const root = await makeTempDir();
  await cp(FIXTURE_CHANGES, join(root, 'openspec', 'changes'), { recursive: true });
  return root;
}

/**
 * One copy of that repository for the tests that only read it (copying ~500 files per test
 * was most of this file's time). Nothing here writes to it.
 */
let readOnlyRepo: Promise<string> | null = null;
function sharedFixtureRepo(): Promise<string> {
  readOnlyRepo ??= fixtureRepo();
  return readOnlyRepo;
}
afterAll(async () => {
  if (readOnlyRepo) await removeTempDir(await readOnlyRepo);
});

describe('listChanges', () => {
  it('lists the active fixture changes sorted by name, without archive/ or loose files', async () => {
    dir = await fixtureRepo();
    const { active } = await fixtureChangeNames();
    const changes = await listChanges(dir);
    expect(changes.map((c) => c.name)).toEqual(active);
    expect(changes).toHaveLength(22);
    expect(changes.find((c) => c.name === 'add-init-agents-target')).toMatchObject({
      path: 'openspec/changes/add-init-agents-target',
      stories: { total: 4, done: 4 },
      tasks: { total: 10, done: 10 },
    });
    expect(changes.find((c) => c.name === 'schema-alias-support')).toMatchObject({
      stories: { total: 0, done: 0 },
      tasks: { total: 0, done: 0 },
    });
  });

  it('takes lastModified from the newest file anywhere in the change folder', async () => {
    dir = await makeTempDir();
    await writeTree(dir, {
      'openspec/changes/a/tasks.md': '- [ ] x',
      'openspec/changes/a/specs/auth/spec.md': '',
    });
    const old = new Date('2020-01-01T00:00:00.000Z');
    const newest = new Date('2024-05-06T07:08:09.000Z');
    await utimes(join(dir, 'openspec/changes/a/tasks.md'), old, old);
    await utimes(join(dir, 'openspec/changes/a/specs/auth/spec.md'), newest, newest);
    expect((await listChanges(dir))[0]?.lastModified).toBe('2024-05-06T07:08:09.000Z');
  });

  it('falls back to the folder time for an empty change, skips invalid names, and survives a missing changes/', async () => {
    dir = await makeTempDir();
    await mkdir(join(dir, 'openspec', 'specs'), { recursive: true });
    expect(await listChanges(dir)).toEqual([]);
    await mkdir(join(dir, 'openspec', 'changes', 'empty'), { recursive: true });
    await mkdir(join(dir, 'openspec', 'changes', 'Bad Name'), { recursive: true });
    await mkdir(join(dir, 'openspec', 'changes', '.hidden'), { recursive: true });
    const changes = await listChanges(dir);
    expect(changes.map((c) => c.name)).toEqual(['empty']);
    expect(Number.isNaN(Date.parse(changes[0]?.lastModified ?? ''))).toBe(false);
  });
});

describe('readChange', () => {
  it('reads stories, requirements, proposal and design of a fixture change', async () => {
    const dir = await sharedFixtureRepo();
    const change = await readChange(dir, 'fix-cli-local-date-semantics');
    expect(change.name).toBe('fix-cli-local-date-semantics');
    expect(change.path).toBe('openspec/changes/fix-cli-local-date-semantics');
    expect(change.stories.map((s) => `${s.id} ${s.title}`)).toEqual([
      '1 Local date behavior',
      '2 Regression coverage and validation',
    ]);
    expect(change.stories[0]?.tasks[0]).toMatchObject({ id: '1.1', line: 3, depth: 0 });
    expect(change.requirements.map((r) => r.capability)).toEqual([
      'change-creation',
      'cli-archive',
    ]);
    expect(change.proposal).toMatch(/^## Why/m);
    expect(change.design).toMatch(/\S/);
  });

  it('reads a change without tasks.md as zero stories', async () => {
    const dir = await sharedFixtureRepo();
    const change = await readChange(dir, 'add-qa-smoke-harness');
    expect(change.stories).toEqual([]);
    expect(change.requirements.length).toBeGreaterThan(0);
    expect(change.proposal).toMatch(/\S/);
    expect(change.design).toBeNull();
  });

  it('rejects an unknown change with exit code 2 and points to `ralphtool list`', async () => {
    const dir = await sharedFixtureRepo();
    const failure = readChange(dir, 'no-such-change');
    await expect(failure).rejects.toBeInstanceOf(UsageError);
    await expect(failure).rejects.toMatchObject({ exitCode: 2 });
    await expect(failure).rejects.toThrow(/no-such-change.*ralphtool list/);
  });

  it('refuses the archive folder, which is never run', async () => {
    const dir = await sharedFixtureRepo();
    await expect(readChange(dir, 'archive')).rejects.toMatchObject({
      exitCode: 2,
      message: expect.stringMatching(/archived/) as unknown,
    });
  });

  it.each(['../../etc', 'a b', 'x;rm -rf', '-rf', 'A', ''])(
    'rejects the invalid name %j with exit code 2',
    async (name) => {
      const dir = await sharedFixtureRepo();
      await expect(readChange(dir, name)).rejects.toMatchObject({
        exitCode: 2,
        message: expect.stringMatching(/invalid change name/) as unknown,
      });
      expect(() => changePaths(dir, name)).toThrow(UsageError);
    },
  );

  it('gives the absolute paths of a change for the prompt', () => {
    expect(changePaths('/repo', 'add-auth')).toEqual({
      dir: '/repo/openspec/changes/add-auth',
      tasksPath: '/repo/openspec/changes/add-auth/tasks.md',
      proposalPath: '/repo/openspec/changes/add-auth/proposal.md',
      designPath: '/repo/openspec/changes/add-auth/design.md',
      specsDir: '/repo/openspec/changes/add-auth/specs',
    });
  });
});

describe('findOpenSpecRoot', () => {
  it('finds the folder holding openspec/ from a nested subdirectory', async () => {
    dir = await makeTempDir();
    await copyFixtureCorpus(join(dir, 'repo'));
    await mkdir(join(dir, 'repo', 'src', 'deep', 'er'), { recursive: true });
    const root = findOpenSpecRoot(join(dir, 'repo', 'src', 'deep', 'er'));
    expect(root.endsWith('/repo')).toBe(true);
    expect((await listChanges(root)).length).toBe(105);
  });

  it('skips a bare openspec/ folder that is not an OpenSpec root', async () => {
    dir = await makeTempDir();
    await mkdir(join(dir, 'openspec', 'changes'), { recursive: true });
    await mkdir(join(dir, 'inner', 'openspec', 'notes'), { recursive: true });
    expect(findOpenSpecRoot(join(dir, 'inner'))).toBe(findOpenSpecRoot(dir));
  });

  it('stops at the top of the git work tree it starts in: an enclosing project is not this one', async () => {
    dir = await makeTempDir();
    await mkdir(join(dir, 'openspec', 'changes', 'outer-change'), { recursive: true });
    await mkdir(join(dir, 'inner', '.git'), { recursive: true });
    await mkdir(join(dir, 'inner', 'src'), { recursive: true });
    expect(() => findOpenSpecRoot(join(dir, 'inner', 'src'))).toThrow(
      `no openspec/ folder in the repository ${join(dir, 'inner')}: run \`openspec init\` there first`,
    );
    // The repository's own openspec/ is found from below, .git beside it or not.
    await mkdir(join(dir, 'inner', 'openspec', 'changes'), { recursive: true });
    expect(findOpenSpecRoot(join(dir, 'inner', 'src'))).toBe(findOpenSpecRoot(join(dir, 'inner')));
    expect(findOpenSpecRoot(join(dir, 'inner')).endsWith('/inner')).toBe(true);
  });

  it('fails with exit code 2 and the `openspec init` hint when there is none', async () => {
    dir = await makeTempDir();
    await mkdir(join(dir, 'a', 'b'), { recursive: true });
    const start = join(dir, 'a', 'b');
    expect(() => findOpenSpecRoot(start)).toThrow(UsageError);
    expect(() => findOpenSpecRoot(start)).toThrow(
      `no openspec/ folder found in ${start} or above: run \`openspec init\` first`,
    );
  });
});
