import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { BEHAVIOURS } from './soak-behaviours.mjs';
import { checkSoakRun, type SoakCliRun, type SoakReport } from './soak-check.mjs';
import { git } from './soak-snapshot.mjs';
import { makeSoakWorld, removeSoakWorld, runSoakCli, type SoakWorld } from './soak-world.mjs';

// Random agent behaviour soak (slow tier, `npm run test:slow`): a seeded agent completes, fails, crashes,
// hangs, commits, rewrites history or deletes files, over a 30-story change; after each run
// the events, the branch, the saved attempts, state.json and the user's files must agree
// (soak-check.mjs lists every invariant). bench/soak.mjs runs hundreds of seeds.
//
// The seeds are chosen so that together they draw every behaviour and end both ways: 13
// completes all 30 stories, 1 and 46 exhaust a story (exit 3); 32 completes, then cleans up.
// Each run takes 10–30 s on a loaded 2-core machine (a hang costs the 2 s agent timeout).

const CLI = path.resolve('dist/cli/main.js');
const KEEP_SEEDS = [13, 1, 46];
const CLEANUP_SEED = 32;
const STORIES = 30;
const RUN_LIMIT_MS = 240_000;

interface Done {
  world: SoakWorld;
  run: SoakCliRun;
  report: SoakReport;
}

const done: Done[] = [];

afterAll(() => {
  for (const { world } of done) removeSoakWorld(world);
});

async function soak(seed: number, onComplete: 'keep' | 'cleanup'): Promise<Done> {
  const world = makeSoakWorld({ stories: STORIES, tasksPerStory: 2 });
  const run = await runSoakCli(world, { cli: CLI, seed, onComplete, agentTimeout: '2s' });
  const result = { world, run, report: checkSoakRun(world, run) };
  done.push(result);
  return result;
}

function lines(text: string): string[] {
  return text.split('\n').filter((line) => line !== '');
}

describe('random agent soak over a 30-story change', () => {
  it.each(KEEP_SEEDS)(
    'seed %i, --on-complete keep: one checkpoint per accepted story, nothing else changed',
    async (seed) => {
      const { world, run, report } = await soak(seed, 'keep');

      expect(report.problems).toEqual([]);
      expect(run.exitCode).toBe(report.outcome === 'complete' ? 0 : 3);
      expect(report.storiesTotal).toBe(STORIES);
      const subjects = lines(
        git(world.dir, 'log', '--reverse', '--format=%s', `main..ralph/${world.change}`),
      );
      const completed = run.events
        .filter((e) => e.type === 'story.completed')
        .map((e) => `checkpoint: ${String(e.storyId)}`);
      expect(subjects).toEqual(['initial state', ...completed]);
      expect(readFileSync(path.join(world.dir, '.env'), 'utf8')).toBe('SECRET=do-not-lose\n');
    },
    RUN_LIMIT_MS,
  );

  it(
    `seed ${CLEANUP_SEED}, --on-complete cleanup: the user's files come back uncommitted beside the stories' files`,
    async () => {
      const { world, run, report } = await soak(CLEANUP_SEED, 'cleanup');

      expect(report.problems).toEqual([]);
      expect(run.exitCode).toBe(report.outcome === 'complete' ? 0 : 3);
      expect(report.storiesCompleted).toBeGreaterThan(0);
      const read = (file: string): string => readFileSync(path.join(world.dir, file), 'utf8');
      expect(git(world.dir, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe('main');
      expect(git(world.dir, 'branch', '--list', `ralph/${world.change}`)).toBe('');
      expect(read('docs/draft.md')).toBe('draft v2, not committed yet\n');
      expect(read('notes/todo.txt')).toBe('my own notes\n');
      expect(read('.env')).toBe('SECRET=do-not-lose\n');
      expect(read('stories/1.txt')).toMatch(/^story 1 accepted at attempt \d\n$/);
      const status = lines(git(world.dir, 'status', '--porcelain', '--untracked-files=all'));
      expect(status).toContain(' M docs/draft.md');
      expect(status).toContain('?? notes/todo.txt');
      expect(status).toContain('?? stories/1.txt');
      // Cleanup leaves the run's work unstaged; the file the user had staged is staged again.
      expect(status).toContain('A  docs/staged.md');
      expect(status.filter((line) => !line.startsWith(' ') && !line.startsWith('??'))).toEqual([
        'A  docs/staged.md',
      ]);
    },
    RUN_LIMIT_MS,
  );

  it('the seeds drew every behaviour and ended both ways', () => {
    expect(done).toHaveLength(KEEP_SEEDS.length + 1);
    const drawn = new Set(done.flatMap(({ report }) => Object.keys(report.behaviours)));
    expect([...drawn].sort()).toEqual(BEHAVIOURS.map(([name]) => name).sort());
    expect(new Set(done.map(({ report }) => report.outcome))).toEqual(
      new Set(['complete', 'max-retries']),
    );
    const kinds = new Set(done.flatMap(({ report }) => Object.keys(report.failedByKind)));
    for (const kind of ['failed-signal', 'tasks-unchecked', 'crash', 'timeout', 'no-signal']) {
      expect(kinds).toContain(kind);
    }
  });

  it('the check notices a repository or a report that is not consistent', () => {
    // A kept run with at least one accepted and one failed attempt.
    const first = done.find(
      ({ run, report }) =>
        run.onComplete === 'keep' &&
        report.storiesCompleted > 0 &&
        report.attempts > report.storiesCompleted,
    );
    expect(first).toBeDefined();
    const { world, run } = first!;
    const check = (r: SoakCliRun = run): string[] => checkSoakRun(world, r).problems;
    expect(check()).toEqual([]);

    // A story.completed that went missing from the events.
    const lastCompleted = run.events.findLastIndex((e) => e.type === 'story.completed');
    const events = run.events.filter((_, i) => i !== lastCompleted);
    expect(check({ ...run, events }).join('\n')).toMatch(/events: .*never ended/);

    // The user's ignored file changed.
    const env = path.join(world.dir, '.env');
    writeFileSync(env, 'SECRET=lost\n');
    expect(check()).toContain('work tree: .env has other content');
    writeFileSync(env, 'SECRET=do-not-lose\n');

    // state.json that disagrees with the events.
    const stateFile = path.join(world.dir, '.git', 'ralphtool', world.change, 'state.json');
    const state = readFileSync(stateFile, 'utf8');
    writeFileSync(stateFile, state.replace('"choice": "keep"', '"choice": "cleanup"'));
    expect(check().join('\n')).toMatch(/state\.json choice/);
    writeFileSync(stateFile, state);

    // A failed attempt whose saved work is gone.
    const ref = lines(
      git(world.dir, 'for-each-ref', '--format=%(refname)', `refs/ralphtool/${world.change}/`),
    )[0];
    expect(ref).toBeDefined();
    const sha = git(world.dir, 'rev-parse', ref!).trim();
    git(world.dir, 'update-ref', '-d', ref!);
    expect(check().join('\n')).toMatch(/attempt refs:/);
    git(world.dir, 'update-ref', ref!, sha);
    expect(check()).toEqual([]);

    // A commit on the branch that is not a checkpoint.
    git(world.dir, 'commit', '-q', '--allow-empty', '-m', 'stray');
    expect(check().join('\n')).toMatch(/history: .*stray|keep: ralph\/.* is at/);
  });
});
