import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { ALL_SUCCEED, FaultWorld, USER_FILES, type Step } from './support/world.js';

// The agent un-ignores files that were ignored when the run started (a secret, installed
// dependencies, build output): it drops the line from .gitignore, adds a `!` rule, deletes
// .gitignore, empties .git/info/exclude or points core.excludesFile elsewhere. Those files
// never enter a commit on ralph/<change> nor a saved attempt, no clean removes them, they stay
// on disk byte for byte, and the user is told.

const CHANGE = 'unignored';
const KEY = 'local.key';
const KEY_BYTES = 'api-key-from-the-exclude-rules\n';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

interface Variant {
  name: string;
  /** Files ignored at the start that the attempt un-ignores. */
  secrets: string[];
  setup?: (w: FaultWorld) => void;
  steps: (w: FaultWorld) => Step[];
}

const VARIANTS: Variant[] = [
  {
    name: 'the .env line removed from .gitignore',
    secrets: ['.env'],
    steps: () => [{ write: '.gitignore', content: 'node_modules/\nbuild/\n' }],
  },
  {
    name: 'a `!.env` rule added',
    secrets: ['.env'],
    steps: () => [{ append: '.gitignore', content: '!.env\n' }],
  },
  {
    name: '.gitignore deleted',
    secrets: [...USER_FILES.ignored],
    steps: () => [{ delete: '.gitignore' }],
  },
  {
    name: '.git/info/exclude emptied',
    secrets: [KEY],
    setup: (w) => {
      writeFileSync(path.join(w.dir, '.git/info/exclude'), `${KEY}\n`);
      w.write(KEY, KEY_BYTES);
    },
    steps: () => [{ write: '.git/info/exclude', content: '' }],
  },
  {
    name: 'core.excludesFile pointed elsewhere',
    secrets: [KEY],
    setup: (w) => {
      const excludes = path.join(w.scratch, 'global-excludes');
      writeFileSync(excludes, `${KEY}\n`);
      w.git('config', 'core.excludesFile', excludes);
      w.write(KEY, KEY_BYTES);
    },
    steps: () => [{ git: ['config', 'core.excludesFile', '/dev/null'] }],
  },
];

/** Every path of every commit reachable from any ref (branches, attempt refs, tags). */
function everyCommittedPath(w: FaultWorld): Set<string> {
  const paths = new Set<string>();
  for (const commit of w.git('rev-list', '--all').split('\n').filter(Boolean)) {
    for (const file of w.treeFiles(commit)) paths.add(file);
  }
  return paths;
}

function expectNeverCommitted(w: FaultWorld, secrets: readonly string[]): void {
  const committed = everyCommittedPath(w);
  for (const secret of secrets) expect(committed.has(secret), secret).toBe(false);
}

function warnings(events: { type: string; [key: string]: unknown }[]): string[] {
  return events
    .filter((e) => e.type === 'error' && e.fatal === false)
    .map((e) => String(e.message));
}

describe('an agent that un-ignores files ignored at the start', () => {
  it.each(VARIANTS)(
    '$name, then fails: never saved, never cleaned, the retry succeeds',
    async ({ secrets, setup, steps }) => {
      world = new FaultWorld(CHANGE, 2);
      const w = world;
      setup?.(w);
      w.scenario({
        '1-1': [
          { write: 'src/work.txt', content: 'agent work\n' },
          ...steps(w),
          { signal: 'FAILED: oops' },
        ],
        ...ALL_SUCCEED,
      });
      const result = await w.loop('run');
      expect(result.exitCode, result.stderr).toBe(0);
      expect(w.subjects(`main..${w.branch}`)).toEqual([
        'initial state',
        'checkpoint: 1',
        'checkpoint: 2',
      ]);
      expect(w.git('show', `refs/ralphtool/${CHANGE}/attempts/1-1:src/work.txt`)).toBe(
        'agent work\n',
      );
      expectNeverCommitted(w, secrets);
      expect(w.userFilesChanged()).toEqual([]);
      if (setup) expect(w.read(KEY)).toBe(KEY_BYTES);
      expect(w.status()).toEqual([]);
      expect(warnings(result.events()).length).toBeGreaterThan(0);
    },
  );

  it.each(VARIANTS)(
    '$name, then completes: the checkpoints and the cleanup leave the files out and on disk',
    async ({ secrets, setup, steps }) => {
      world = new FaultWorld(CHANGE, 2);
      const w = world;
      setup?.(w);
      w.scenario({
        '1-1': [
          { write: 'src/work.txt', content: 'agent work\n' },
          ...steps(w),
          { tick: 'all' },
          { signal: 'COMPLETE' },
        ],
        ...ALL_SUCCEED,
      });
      const result = await w.loop('run', [], { onComplete: 'cleanup' });
      expect(result.exitCode, result.stderr).toBe(0);
      // Story 2 started from the checkpoint as it was: no repair, no extra save.
      expect(w.attemptRefs()).toEqual([]);
      expect(result.events().filter((e) => e.type === 'checkpoint.reverted')).toEqual([]);
      expect(w.currentBranch()).toBe('main');
      expectNeverCommitted(w, secrets);
      // The user's files, ignored ones included, are byte for byte as before the run.
      const changed = w.userFilesChanged().filter((c) => !c.endsWith(' .gitignore'));
      expect(changed).toEqual([]);
      if (setup) expect(w.read(KEY)).toBe(KEY_BYTES);
      expect(w.read('src/work.txt')).toBe('agent work\n');
      const told = warnings(result.events()).join('\n');
      expect(told).toMatch(/left (it|them) out of the checkpoint|put it back/);
      // Nothing was staged by the cleanup: the user decides what to commit.
      expect(w.git('diff', '--cached', '--name-only')).toBe('');
    },
  );
});

describe('an ignored secret the agent un-ignores and stages', () => {
  it('is never in the checkpoint even when the agent committed it itself', async () => {
    world = new FaultWorld(CHANGE, 1);
    const w = world;
    const before = readFileSync(path.join(w.dir, '.env'));
    w.scenario({
      '1-1': [
        { append: '.gitignore', content: '!.env\n' },
        { git: ['add', '-A'] },
        { git: ['commit', '-q', '-m', 'agent commits the secret'] },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    const result = await w.loop('run');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.treeFiles(w.branch)).not.toContain('.env');
    expect(readFileSync(path.join(w.dir, '.env'))).toEqual(before);
    expect(warnings(result.events())).toEqual([
      expect.stringContaining('.env: ignored when the run started'),
    ]);
  });

  it('failed after committing it: the save keeps its files but not the commit holding the secret', async () => {
    world = new FaultWorld(CHANGE, 1);
    const w = world;
    const before = readFileSync(path.join(w.dir, '.env'));
    w.scenario({
      '1-1': [
        { write: 'src/work.txt', content: 'agent work\n' },
        { append: '.gitignore', content: '!.env\n' },
        { git: ['add', '-A'] },
        { git: ['commit', '-q', '-m', 'agent commits the secret'] },
        { signal: 'FAILED: gave up' },
      ],
      '1-2': [{ tick: 'all' }, { signal: 'COMPLETE' }],
    });
    const result = await w.loop('run');
    expect(result.exitCode, result.stderr).toBe(0);
    const saved = `refs/ralphtool/${CHANGE}/attempts/1-1`;
    expect(w.git('show', `${saved}:src/work.txt`)).toBe('agent work\n');
    expectNeverCommitted(w, ['.env']);
    expect(readFileSync(path.join(w.dir, '.env'))).toEqual(before);
    expect(w.status()).toEqual([]);
  });
});
