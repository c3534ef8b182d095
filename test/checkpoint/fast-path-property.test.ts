import { chmodSync, mkdirSync, rmSync, symlinkSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startRun } from '../../src/checkpoint/start.js';
import { NO_FIGURES } from '../../src/checkpoint/records.js';
import type { StepObserver } from '../../src/checkpoint/journal.js';
import { makeRepo, runLocation } from '../git/helpers.js';
import type { TempRepo } from '../git/helpers.js';
import { outcome, runSequence, type Outcome, type Sequence } from './sequence-outcome.js';

/**
 * The fast path does what the full path does (docs/git-protocol.md, "Sequences as journals"):
 * when no git command touched HEAD, the branch or the index during an attempt, the accept and
 * the revert plan fewer steps. Over generated attempts — files written, changed, deleted, made
 * executable, linked, ignored, emptied folders — the same attempt is ended once on the fast path
 * and once with the index merely rewritten by `git reset -q` (nothing staged changes: the full
 * path), and both must leave the same trees, files, index and saved attempt.
 */

const repos: TempRepo[] = [];
afterAll(() => {
  for (const made of repos.splice(0)) made.remove();
});

/** A small deterministic generator (mulberry32): a failing seed is a failing case to rerun. */
function random(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const TRACKED = ['app.txt', 'lib/util.txt', 'lib/deep/core.txt', 'run.sh', 'docs/readme.md'];
const NAMES = ['a.txt', 'b.md', 'new/c.txt', 'new/deep/d.txt', 'lib/e.txt', 'build/out.log'];

type Operation = (r: TempRepo) => void;

/** One thing an agent does to the files (never git), chosen by the generator. */
function operation(next: () => number, serial: number): Operation {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T;
  const kind = Math.floor(next() * 7);
  const content = `content ${serial} ${Math.floor(next() * 1000)}\n`;
  switch (kind) {
    case 0: {
      const name = pick(NAMES);
      return (r) => r.write(name, content);
    }
    case 1: {
      const name = pick(TRACKED);
      return (r) => r.write(name, content);
    }
    case 2: {
      const name = pick(TRACKED);
      return (r) => rmSync(join(r.dir, name), { force: true, recursive: true });
    }
    case 3: {
      const name = pick(TRACKED);
      return (r) => {
        r.write(name, content);
        chmodSync(join(r.dir, name), 0o755);
      };
    }
    case 4: {
      const name = `link-${serial}`;
      const target = pick(TRACKED);
      return (r) => symlinkSync(target, join(r.dir, name));
    }
    case 5:
      return (r) => mkdirSync(join(r.dir, `empty-${serial}`, 'inner'), { recursive: true });
    default: {
      const rule = pick(['*.log', 'new/', 'lib/e.txt']);
      return (r) => r.write('.gitignore', `.env\nbuild/\n${rule}\n`);
    }
  }
}

async function ended(
  sequence: Sequence,
  operations: readonly Operation[],
  touchIndex: boolean,
): Promise<{ steps: string[]; end: Outcome }> {
  const r = makeRepo();
  repos.push(r);
  r.write('.gitignore', '.env\nbuild/\n');
  for (const name of TRACKED) r.write(name, `${name}\n`);
  r.git('add', '-A');
  r.git('commit', '-q', '-m', 'base');
  r.write('.env', 'SECRET=1\n');
  const steps: string[] = [];
  let armed = false;
  const observeSteps: StepObserver = (_sequence, step, when) => {
    if (armed && when === 'recorded') steps.push(step);
  };
  const run = await startRun({ ...runLocation(r.dir, 'journal'), observeSteps });
  r.write('one.txt', 'story one\n');
  await run.acceptStory('1', NO_FIGURES);
  await run.ensureAtCheckpoint();
  await run.startAttempt('2', 1);
  for (const apply of operations) apply(r);
  if (touchIndex) r.git('reset', '-q');
  armed = true;
  const notice = await runSequence(sequence, run);
  return { steps, end: await outcome(r, run.paths.dir, notice) };
}

const SEEDS = [1, 2, 3, 4, 5, 6, 7, 8];

describe.each(['accept', 'revert'] as const)('the %s’s fast path', (sequence) => {
  it.each(SEEDS)('does what the full path does: generated attempt, seed %i', async (seed) => {
    const next = random(seed);
    const count = 1 + Math.floor(next() * 6);
    const operations = Array.from({ length: count }, (_, serial) => operation(next, serial));
    const fast = await ended(sequence, operations, false);
    const full = await ended(sequence, operations, true);
    // Each took the path it is named for.
    expect(fast.steps).not.toContain('branch-to-checkpoint');
    expect(full.steps).toContain('branch-to-checkpoint');
    expect(fast.end).toEqual(full.end);
  });
});
