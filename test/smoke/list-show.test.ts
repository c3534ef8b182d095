import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { runCli } from '../support/cli.js';
import { copyFixtureCorpus, makeTempDir, removeTempDir } from '../openspec/helpers.js';

const listSchema = z.object({
  changes: z.array(
    z.object({
      name: z.string(),
      path: z.string(),
      stories: z.object({ total: z.number(), done: z.number() }),
      tasks: z.object({ total: z.number(), done: z.number() }),
      lastModified: z.iso.datetime(),
    }),
  ),
});

const showSchema = z.object({
  name: z.string(),
  path: z.string(),
  stories: z.array(
    z.object({
      id: z.string(),
      title: z.string(),
      done: z.boolean(),
      tasks: z.array(z.object({ id: z.string(), description: z.string(), done: z.boolean() })),
    }),
  ),
  requirements: z.array(
    z.object({
      capability: z.string(),
      name: z.string(),
      operation: z.enum(['ADDED', 'MODIFIED', 'REMOVED', 'RENAMED']).nullable(),
      scenarios: z.array(
        z.object({
          name: z.string(),
          given: z.array(z.string()),
          when: z.array(z.string()),
          then: z.array(z.string()),
        }),
      ),
    }),
  ),
});

describe('ralphtool list and show on the fixture corpus', () => {
  let root: string;
  let names: string[];

  beforeAll(async () => {
    root = await makeTempDir('ralphtool-cli-');
    names = await copyFixtureCorpus(root);
  });
  afterAll(async () => removeTempDir(root));

  it('lists every change with the stable JSON shape', async () => {
    const run = await runCli(['list', '--json'], { cwd: root });
    expect(run.exitCode).toBe(0);
    expect(run.stderr).toBe('');
    const parsed = listSchema.parse(JSON.parse(run.stdout));
    expect(parsed.changes.map((c) => c.name)).toEqual([...names].sort());
    const sample = parsed.changes.find((c) => c.name === 'add-update-workflow');
    expect(sample).toMatchObject({
      path: 'openspec/changes/add-update-workflow',
      stories: { total: 4, done: 4 },
      tasks: { total: 15, done: 15 },
    });
  });

  it('prints a table with progress from a subdirectory and with -C', async () => {
    const nested = join(root, 'openspec', 'changes', 'add-update-workflow');
    const fromInside = await runCli(['list'], { cwd: nested });
    expect(fromInside.exitCode).toBe(0);
    expect(fromInside.stdout).toMatch(/^CHANGE\s+STORIES\s+TASKS\s+PROGRESS\s+MODIFIED/);
    expect(fromInside.stdout).toMatch(/add-update-workflow\s+4\/4\s+15\/15\s+█{10}/);
    const withC = await runCli(['-C', root, 'list'], { cwd: '/' });
    expect(withC.stdout).toBe(fromInside.stdout);
  });

  it('shows a change as text and as JSON', async () => {
    const text = await runCli(['show', 'add-update-workflow'], { cwd: root });
    expect(text.exitCode).toBe(0);
    expect(text.stdout).toContain('stories 4/4 · tasks 15/15');
    expect(text.stdout).toContain('[x] 1.1 Create `src/core/templates/workflows/update-change.ts`');
    expect(text.stdout).toContain('opsx-update-skill');
    expect(text.stdout).toContain('WHEN the user invokes `/opsx:update` without a change name');

    const json = await runCli(['show', 'add-update-workflow', '--json'], { cwd: root });
    const change = showSchema.parse(JSON.parse(json.stdout));
    expect(change.stories.map((s) => s.id)).toEqual(['1', '2', '3', '4']);
    expect(change.stories[0]?.tasks[0]).toMatchObject({ id: '1.1', done: true });
    expect(change.requirements.length).toBeGreaterThan(0);
    expect(change.requirements[0]?.operation).toBe('ADDED');
  });
});

describe('ralphtool list and show: bad input', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await makeTempDir('ralphtool-cli-bad-');
  });
  afterAll(async () => removeTempDir(dir));

  it('says to run openspec init where there is no openspec/ (exit 2)', async () => {
    const run = await runCli(['list'], { cwd: dir });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toMatch(/no openspec\/ folder found .*openspec init/);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
  });

  it('prints a hint when there are no changes', async () => {
    await mkdir(join(dir, 'openspec', 'changes'), { recursive: true });
    const run = await runCli(['list'], { cwd: dir });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('openspec new change');
    const json = await runCli(['list', '--json'], { cwd: dir });
    expect(JSON.parse(json.stdout)).toEqual({ changes: [], skipped: [] });
  });

  it('names the folders it cannot run instead of hiding them (OpenSpec lists them)', async () => {
    await mkdir(join(dir, 'openspec', 'changes', 'My_Change'), { recursive: true });
    await mkdir(join(dir, 'openspec', 'changes', 'real'), { recursive: true });
    await writeFile(join(dir, 'openspec', 'changes', 'real', 'tasks.md'), '- [ ] one\n');
    const run = await runCli(['list'], { cwd: dir });
    expect(run.exitCode).toBe(0);
    expect(run.stdout).toContain('real');
    expect(run.stdout).not.toContain('My_Change');
    expect(run.stderr).toContain('skipped openspec/changes/My_Change: not a valid change name');
    const json = await runCli(['list', '--json'], { cwd: dir });
    const parsed = JSON.parse(json.stdout) as { changes: { name: string }[]; skipped: string[] };
    expect(parsed.changes.map((c) => c.name)).toEqual(['real']);
    expect(parsed.skipped).toEqual(['My_Change']);
  });

  it('rejects invalid change names and unknown changes with exit 2, no stack trace', async () => {
    await mkdir(join(dir, 'openspec', 'changes', 'real'), { recursive: true });
    await writeFile(join(dir, 'openspec', 'changes', 'real', 'tasks.md'), '- [ ] one\n');
    for (const bad of ['../../etc', 'a b', 'x;rm -rf', 'A', '']) {
      const run = await runCli(['show', bad], { cwd: dir });
      expect(run.exitCode, bad).toBe(2);
      expect(run.stderr, bad).toMatch(/invalid change name/);
      expect(run.stderr, bad).not.toMatch(/\n\s+at /);
    }
    const dash = await runCli(['show', '--', '-rf'], { cwd: dir });
    expect(dash.exitCode).toBe(2);
    const unknown = await runCli(['show', 'nope'], { cwd: dir });
    expect(unknown.exitCode).toBe(2);
    expect(unknown.stderr).toMatch(/nope/);
    expect(unknown.stderr).toMatch(/ralphtool list/);
  });

  it('rejects unknown flags and a missing -C directory with exit 2', async () => {
    const flag = await runCli(['list', '--bogus'], { cwd: dir });
    expect(flag.exitCode).toBe(2);
    expect(flag.stderr).toMatch(/^ralphtool: unknown option '--bogus'/);
    const missing = await runCli(['-C', join(dir, 'missing'), 'list'], { cwd: dir });
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toMatch(/not a directory/);
  });

  it('prints help and exits 2 without a command when not on a terminal', async () => {
    const run = await runCli([], { cwd: dir });
    expect(run.exitCode).toBe(2);
    expect(run.stderr).toContain('Usage: ralphtool');
  });

  it('names an unknown command as such, suggests the near one and lists the real ones (exit 2)', async () => {
    const run = await runCli(['lst'], { cwd: dir });
    expect(run.exitCode).toBe(2);
    expect(run.stderr.trim().split('\n')).toHaveLength(1);
    expect(run.stderr).toContain('unknown command "lst" (did you mean list?)');
    expect(run.stderr).toContain('list, show, run, resume, finish, status, report, demo, doctor');
    const far = await runCli(['deploy'], { cwd: dir });
    expect(far.exitCode).toBe(2);
    expect(far.stderr).toContain('unknown command "deploy": the commands are');
    expect(far.stderr).not.toContain('did you mean');
  });

  it('suggests the change a near-miss name was meant to be, for show and run (exit 2)', async () => {
    await mkdir(join(dir, 'openspec', 'changes', 'add-thing'), { recursive: true });
    await writeFile(join(dir, 'openspec', 'changes', 'add-thing', 'tasks.md'), '- [ ] one\n');
    for (const command of ['show', 'run']) {
      const run = await runCli([command, 'add-thng'], { cwd: dir });
      expect(run.exitCode, command).toBe(2);
      expect(run.stderr.trim().split('\n'), command).toHaveLength(1);
      expect(run.stderr, command).toContain('unknown change "add-thng" (did you mean add-thing?)');
    }
    const far = await runCli(['show', 'zzz'], { cwd: dir });
    expect(far.exitCode).toBe(2);
    expect(far.stderr).not.toContain('did you mean');
  });
});
