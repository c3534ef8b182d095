import { linkSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { RuntimeError, UsageError } from '../../src/core/errors.js';
import {
  attemptRef,
  promptFile,
  ralphBranch,
  runPaths,
  transcriptFile,
} from '../../src/checkpoint/paths.js';
import {
  newStoryProgress,
  readRunState,
  runStateExists,
  writeRunState,
} from '../../src/checkpoint/state.js';
import type { RunState } from '../../src/checkpoint/state.js';
import { COMPLETION_CHOICES, FAILURE_KINDS, RUN_OUTCOMES } from '../../src/core/events.js';

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'ralphtool-state-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function sampleState(): RunState {
  const now = new Date().toISOString();
  return {
    version: 1,
    change: 'add-auth',
    branch: 'ralph/add-auth',
    originalBranch: { kind: 'branch', name: 'main' },
    originalSha: 'a'.repeat(40),
    baseSha: 'b'.repeat(40),
    checkpointSha: 'c'.repeat(40),
    status: 'active',
    outcome: null,
    choice: null,
    step: { op: 'revert', storyId: '2', attempt: 1 },
    stories: { '1': { ...newStoryProgress(), attempts: 2, completed: true, costUsd: 0.5 } },
    currentStory: '2',
    currentAttempt: 1,
    costUsd: 0.5,
    startedAt: now,
    updatedAt: now,
    pid: 123,
    agentPgid: null,
    agentIdentity: null,
    host: 'box',
  };
}

describe('run paths', () => {
  it('puts everything under <git-common-dir>/ralphtool/<change>/, absolute', () => {
    const paths = runPaths('repo/.git', 'add-auth');
    expect(paths.dir).toBe(join(process.cwd(), 'repo/.git/ralphtool/add-auth'));
    expect(paths.state).toBe(join(paths.dir, 'state.json'));
    expect(paths.lock).toBe(join(paths.dir, 'lock'));
    expect(paths.learnings).toBe(join(paths.dir, 'learnings.md'));
    expect(transcriptFile(paths, '2.1', 3)).toBe(join(paths.dir, 'transcripts/2.1-3.ndjson'));
    expect(promptFile(paths, '2', 1)).toBe(join(paths.dir, 'prompts/2-1.md'));
  });

  it('names the branch and the attempt refs', () => {
    expect(ralphBranch('add-auth')).toBe('ralph/add-auth');
    expect(attemptRef('add-auth', '2.1', 3)).toBe('refs/ralphtool/add-auth/attempts/2.1-3');
  });

  it('refuses names that could escape the folder or break a ref', () => {
    expect(() => runPaths('/r/.git', '../etc')).toThrow(UsageError);
    expect(() => attemptRef('add-auth', '../x', 1)).toThrow(RuntimeError);
    expect(() => attemptRef('add-auth', 'a b', 1)).toThrow(RuntimeError);
    expect(() => attemptRef('add-auth', '-x', 1)).toThrow(RuntimeError);
  });
});

describe('run state file', () => {
  it('writes and reads back a validated state', async () => {
    const file = join(tempDir(), 'nested', 'state.json');
    expect(await runStateExists(file)).toBe(false);
    expect(await readRunState(file)).toBeNull();
    const state = sampleState();
    await writeRunState(file, state);
    expect(await runStateExists(file)).toBe(true);
    expect(await readRunState(file)).toEqual(state);
  });

  it('reads a record without a question (older ralphtool) and keeps an open question', async () => {
    const file = join(tempDir(), 'state.json');
    const old = sampleState();
    expect('question' in old).toBe(false);
    await writeRunState(file, old);
    expect((await readRunState(file))?.question).toBeUndefined();
    const question = {
      storyId: '2',
      attempt: 1,
      text: 'Which database?',
      askedAt: new Date().toISOString(),
      answer: null,
    };
    await writeRunState(file, { ...old, question });
    expect((await readRunState(file))?.question).toEqual(question);
    await writeRunState(file, { ...old, question: { ...question, answer: 'SQLite' } });
    expect((await readRunState(file))?.question?.answer).toBe('SQLite');
  });

  it('replaces the file by rename, leaving no temporary file behind', async () => {
    const dir = tempDir();
    const file = join(dir, 'state.json');
    await writeRunState(file, sampleState());
    // A second name for the old file: an in-place rewrite would change what it shows.
    linkSync(file, join(dir, 'old-link'));
    const before = readFileSync(join(dir, 'old-link'), 'utf8');
    await writeRunState(file, { ...sampleState(), currentStory: '3' });
    expect(readFileSync(join(dir, 'old-link'), 'utf8')).toBe(before);
    expect((await readRunState(file))?.currentStory).toBe('3');
    expect(readdirSync(dir).sort()).toEqual(['old-link', 'state.json']);
  });

  it('refuses to write a state that does not match the schema', async () => {
    const file = join(tempDir(), 'state.json');
    const bad = { ...sampleState(), checkpointSha: 'not-a-sha' };
    await expect(writeRunState(file, bad)).rejects.toThrow();
    expect(await runStateExists(file)).toBe(false);
  });

  it('names the file and the way out when it is not JSON', async () => {
    const file = join(tempDir(), 'state.json');
    writeFileSync(file, '{"version": 1, "change": ');
    const error = await readRunState(file).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RuntimeError);
    expect((error as Error).message).toContain(file);
    expect((error as Error).message).toMatch(
      /will not guess; its work is on branch ralph\/.*delete the folder .*git branch -D/,
    );
  });

  it('keeps the budget; a record written before budgets (no field) reads as none', async () => {
    const file = join(tempDir(), 'state.json');
    const budget = { maxCostUsd: 5, maxStoryCostUsd: null };
    await writeRunState(file, { ...sampleState(), budget });
    expect((await readRunState(file))?.budget).toEqual(budget);
    // The sample is what an older ralphtool wrote: no `budget` at all.
    writeFileSync(file, JSON.stringify(sampleState()));
    expect((await readRunState(file))?.budget).toBeUndefined();
    writeFileSync(file, JSON.stringify({ ...sampleState(), budget: { ...budget, maxCostUsd: 0 } }));
    await expect(readRunState(file)).rejects.toThrow(/damaged \(budget\.maxCostUsd: /);
  });

  it('rejects an unknown version and a damaged field', async () => {
    const file = join(tempDir(), 'state.json');
    writeFileSync(file, JSON.stringify({ ...sampleState(), version: 7 }));
    await expect(readRunState(file)).rejects.toThrow(/version 7.*reads version 1/);
    writeFileSync(file, JSON.stringify({ ...sampleState(), status: 'sleeping' }));
    await expect(readRunState(file)).rejects.toThrow(/damaged \(status: /);
  });

  it('reads every outcome, choice and failure kind core defines, and only those', async () => {
    const file = join(tempDir(), 'state.json');
    for (const outcome of RUN_OUTCOMES) {
      for (const choice of COMPLETION_CHOICES) {
        await writeRunState(file, { ...sampleState(), outcome, choice });
        expect(await readRunState(file)).toMatchObject({ outcome, choice });
      }
    }
    for (const kind of FAILURE_KINDS) {
      const stories = { '2': { ...newStoryProgress(), lastFailure: { kind, reason: 'why' } } };
      await writeRunState(file, { ...sampleState(), stories });
      expect((await readRunState(file))?.stories['2']?.lastFailure).toEqual({
        kind,
        reason: 'why',
      });
    }
    writeFileSync(file, JSON.stringify({ ...sampleState(), outcome: 'paused' }));
    await expect(readRunState(file)).rejects.toThrow(/damaged \(outcome: /);
  });

  it('reads a failure kind it does not know as no failure, keeping the rest of the run', async () => {
    const file = join(tempDir(), 'state.json');
    const story = { ...newStoryProgress(), attempts: 2, costUsd: 0.5 };
    const lastFailure = { kind: 'from-a-newer-ralphtool', reason: 'why' };
    writeFileSync(
      file,
      JSON.stringify({ ...sampleState(), stories: { '2': { ...story, lastFailure } } }),
    );
    const state = await readRunState(file);
    expect(state?.stories['2']).toEqual({ ...story, lastFailure: null });
    expect(state?.currentStory).toBe('2');
  });
});
