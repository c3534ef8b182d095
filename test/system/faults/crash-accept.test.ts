import { afterEach, describe, expect, it } from 'vitest';
import { crashWhileAgentRuns } from './support/crash.js';
import { ALL_SUCCEED, FaultWorld } from './support/world.js';

// Row 2, "accept": kill -9 between the agent's COMPLETE and the checkpoint commit, and at each
// point of the accept sequence (step marker written, `add -A`, `commit`, then the state update).

const CHANGE = 'crash-accept';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

/** Story 1's agent does the whole story, says COMPLETE, and is still running. */
function completingWorld(): FaultWorld {
  return new FaultWorld(CHANGE, 3).scenario({
    '1-1': [
      { write: 'src/one.txt', content: 'one\n' },
      { tick: 'all' },
      { signal: 'COMPLETE' },
      { hang: true },
    ],
  });
}

describe('kill -9 after the agent said COMPLETE, before the checkpoint commit', () => {
  it('resume saves the unjudged attempt under its ref, reverts it and retries the story', async () => {
    world = completingWorld();
    const w = world;
    const crashed = await crashWhileAgentRuns(w, '<promise>COMPLETE</promise>', {
      killAgent: false,
    });
    expect(crashed).toMatchObject({ step: null, currentStory: '1', currentAttempt: 1 });
    const base = crashed.checkpointSha as string;

    w.scenario(ALL_SUCCEED);
    const result = await w.loop('resume');
    expect(result.exitCode, result.stderr).toBe(0);
    const ref = `refs/ralphtool/${CHANGE}/attempts/1-1`;
    expect(w.attemptRefs()).toEqual([ref]);
    expect(w.git('show', `${ref}:src/one.txt`)).toBe('one\n');
    expect(w.git('rev-parse', `${ref}^`).trim()).toBe(base);
    expect(w.invoked('1', 2)).toBe(true);
    expect(w.subjects(`main..${w.branch}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
      'checkpoint: 3',
    ]);
    expect(w.status()).toEqual([]);
    expect(w.userFilesChanged()).toEqual([]);
    expect(w.state()).toMatchObject({ status: 'finished', outcome: 'complete', step: null });
    expect(w.state().stories['1']).toMatchObject({ completed: true, attempts: 2 });
  });
});

type Reached = 'marker' | 'staged' | 'committed';

/** The accept of story 1 interrupted after `reached`; the tree holds the agent's finished work. */
async function interruptedAccept(reached: Reached): Promise<{ w: FaultWorld; base: string }> {
  world = completingWorld();
  const w = world;
  const crashed = await crashWhileAgentRuns(w, '<promise>COMPLETE</promise>');
  const base = crashed.checkpointSha as string;
  w.writeState({ ...crashed, step: { op: 'accept', storyId: '1' } });
  if (reached !== 'marker') w.git('add', '-A');
  if (reached === 'committed') {
    w.git('commit', '-q', '--allow-empty', '--no-verify', '-m', 'checkpoint: 1');
  }
  return { w, base };
}

const POINTS: Reached[] = ['marker', 'staged', 'committed'];

describe('an accept interrupted by kill -9', () => {
  it.each(POINTS)(
    'after "%s": resume finishes it without redoing the story, then the rest (exit 0)',
    async (reached) => {
      const { w, base } = await interruptedAccept(reached);
      w.scenario(ALL_SUCCEED);
      const result = await w.loop('resume');
      expect(result.exitCode, result.stderr).toBe(0);

      expect(w.invoked('1', 2)).toBe(false);
      const started = result.events().filter((e) => e.type === 'story.started');
      expect(started.map((e) => e.storyId)).toEqual(['2', '3']);
      expect(w.subjects(`${base}..${w.branch}`)).toEqual([
        'checkpoint: 1',
        'checkpoint: 2',
        'checkpoint: 3',
      ]);
      expect(w.git('show', `${base}~0:src/app.txt`)).toBe('app v1\n');
      expect(w.git('show', `${w.branch}~2:src/one.txt`)).toBe('one\n');
      expect(w.attemptRefs()).toEqual([]);
      expect(w.status()).toEqual([]);
      expect(w.userFilesChanged()).toEqual([]);

      const state = w.state();
      expect(state).toMatchObject({ status: 'finished', outcome: 'complete', step: null });
      // Story 1 was accepted: the state (and so `status`) must say so.
      expect(state.stories['1']).toMatchObject({ completed: true, attempts: 1 });
      const status = await w.statusJson();
      expect(status.runs[0]).toMatchObject({ stories: { done: 3, total: 3 } });
    },
  );

  it.each(POINTS)(
    'after "%s": finish --keep commits story 1 once and ends the run',
    async (reached) => {
      const { w, base } = await interruptedAccept(reached);
      const result = await w.cli(['finish', CHANGE, '--keep']);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(w.currentBranch()).toBe(w.branch);
      expect(w.subjects(`${base}..${w.branch}`)).toEqual(['checkpoint: 1']);
      expect(w.status()).toEqual([]);
      expect(w.userFilesChanged()).toEqual([]);
      expect(w.state()).toMatchObject({ status: 'finished', choice: 'keep', step: null });
      expect(w.state().stories['1']).toMatchObject({ completed: true });
    },
  );
});
