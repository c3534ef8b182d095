import { afterEach, describe, expect, it } from 'vitest';
import { crashWhileAgentRuns, saveWorkTreeAs } from './support/crash.js';
import { ALL_SUCCEED, FaultWorld, succeed } from './support/world.js';

// Row 2, "revert": kill -9 at each point of the revert sequence (step marker, save under the
// attempt ref, `checkout -f -B` + `reset --hard`, `clean -fd`, then the state update), and at
// the moment ralphtool reports the failure (wherever in the revert that lands).

const CHANGE = 'crash-revert';
const REF = `refs/ralphtool/${CHANGE}/attempts/2-1`;

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

/** Story 1 is accepted; story 2's agent leaves changed, deleted and new files, then says so. */
function failingWorld(tail: Record<string, unknown>[]): FaultWorld {
  return new FaultWorld(CHANGE, 3).scenario({
    '1-1': succeed('src/one.txt', 'one\n'),
    '2-1': [
      { write: 'src/partial.txt', content: 'half-way\n' },
      { write: 'src/deep/new/file.txt', content: 'deep\n' },
      { append: 'src/app.txt', content: 'broken\n' },
      { delete: 'docs/stable.md' },
      ...tail,
    ],
  });
}

type Reached = 'marker' | 'saved' | 'reset' | 'cleaned';

async function interruptedRevert(reached: Reached): Promise<{ w: FaultWorld; checkpoint: string }> {
  world = failingWorld([{ say: 'broke things' }, { hang: true }]);
  const w = world;
  const crashed = await crashWhileAgentRuns(w, 'broke things');
  const checkpoint = crashed.checkpointSha as string;
  w.writeState({ ...crashed, step: { op: 'revert', storyId: '2', attempt: 1 } });
  if (reached !== 'marker') saveWorkTreeAs(w, REF, checkpoint);
  if (reached === 'reset' || reached === 'cleaned') {
    w.git('checkout', '-q', '-f', '-B', w.branch, checkpoint, '--');
    w.git('reset', '-q', '--hard', checkpoint);
  }
  if (reached === 'cleaned') w.git('clean', '-q', '-f', '-d');
  return { w, checkpoint };
}

function expectAttemptSaved(w: FaultWorld, checkpoint: string): void {
  expect(w.attemptRefs()).toEqual([REF]);
  expect(w.git('show', `${REF}:src/partial.txt`)).toBe('half-way\n');
  expect(w.git('show', `${REF}:src/deep/new/file.txt`)).toBe('deep\n');
  expect(w.git('show', `${REF}:src/app.txt`)).toBe('app v1\nbroken\n');
  expect(w.treeFiles(REF)).not.toContain('docs/stable.md');
  // The saved work descends from the checkpoint it was based on.
  expect(w.git('merge-base', '--is-ancestor', checkpoint, REF)).toBe('');
}

const POINTS: Reached[] = ['marker', 'saved', 'reset', 'cleaned'];

describe('a revert interrupted by kill -9', () => {
  it.each(POINTS)(
    'after "%s": resume completes it (the work saved) and finishes the change',
    async (reached) => {
      const { w, checkpoint } = await interruptedRevert(reached);
      w.scenario(ALL_SUCCEED);
      const result = await w.loop('resume');
      expect(result.exitCode, result.stderr).toBe(0);
      expectAttemptSaved(w, checkpoint);
      const started = result.events().filter((e) => e.type === 'story.started');
      expect(started.map((e) => [e.storyId, e.attempt])).toEqual([
        ['2', 2],
        ['3', 1],
      ]);
      expect(w.subjects(`main..${w.branch}`)).toEqual([
        'initial state',
        'checkpoint: 1',
        'checkpoint: 2',
        'checkpoint: 3',
      ]);
      expect(w.treeFiles(w.branch)).not.toContain('src/partial.txt');
      expect(w.treeFiles(w.branch)).toContain('docs/stable.md');
      expect(w.status()).toEqual([]);
      expect(w.userFilesChanged()).toEqual([]);
      expect(w.state()).toMatchObject({ status: 'finished', outcome: 'complete', step: null });
    },
  );

  it.each(POINTS)(
    'after "%s": finish --cleanup returns to main with story 1 only',
    async (reached) => {
      const { w, checkpoint } = await interruptedRevert(reached);
      const mainBefore = w.sha('main');
      const result = await w.cli(['finish', CHANGE, '--cleanup']);
      expect(result.exitCode, result.stderr).toBe(0);
      expectAttemptSaved(w, checkpoint);
      expect(w.currentBranch()).toBe('main');
      expect(w.sha('main')).toBe(mainBefore);
      expect(w.branchExists(w.branch)).toBe(false);
      expect(w.status().sort()).toEqual(
        [' M docs/draft.md', ` M ${w.tasksPath}`, '?? notes/todo.txt', '?? src/one.txt'].sort(),
      );
      expect(w.userFilesChanged()).toEqual([]);
      expect(w.state()).toMatchObject({ status: 'finished', choice: 'cleanup', step: null });
    },
  );
});

describe('kill -9 the moment the failure is reported (somewhere in the revert)', () => {
  it('resume finishes the revert and the change; the failed attempt is saved', async () => {
    world = failingWorld([{ signal: 'FAILED: cannot do it' }]);
    const w = world;
    const live = w.spawn('run');
    await live.waitFor((e) => e.type === 'attempt.failed' && e.storyId === '2');
    await live.kill9();
    const crashed = w.state();
    const checkpoint = crashed.checkpointSha as string;
    w.scenario(ALL_SUCCEED);
    const result = await w.loop('resume');
    expect(result.exitCode, result.stderr).toBe(0);
    expectAttemptSaved(w, checkpoint);
    expect(w.subjects(`main..${w.branch}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
      'checkpoint: 3',
    ]);
    expect(w.state().stories['2']).toMatchObject({ completed: true, attempts: 2 });
    expect(w.status()).toEqual([]);
    expect(w.userFilesChanged()).toEqual([]);
  });
});
