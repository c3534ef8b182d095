import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startState, writeStaleLock } from './support/crash.js';
import { ALL_SUCCEED, FaultWorld } from './support/world.js';

// Row 2, "start": ralphtool killed at each point of the start sequence (state written with
// step "start", then `checkout -B`, `add -A`, `commit "initial state"`, then the state update).
// The crash state is reproduced exactly: the state file as startRun writes it, then the git
// steps the sequence had done by hand.

const CHANGE = 'crash-start';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

type Reached = 'nothing' | 'checkout' | 'add' | 'commit';

/** A repository as a start interrupted after `reached` leaves it. */
function interruptedStart(reached: Reached): FaultWorld {
  world = new FaultWorld(CHANGE, 2).scenario(ALL_SUCCEED);
  const w = world;
  w.writeState(startState(w));
  writeStaleLock(path.join(w.runDir, 'lock'), CHANGE);
  if (reached !== 'nothing') w.git('checkout', '-q', '-B', w.branch);
  if (reached === 'add' || reached === 'commit') w.git('add', '-A');
  if (reached === 'commit') {
    w.git('commit', '-q', '--allow-empty', '--no-verify', '-m', 'initial state');
  }
  return w;
}

const POINTS: Reached[] = ['nothing', 'checkout', 'add', 'commit'];

describe('a start interrupted by kill -9', () => {
  it.each(POINTS)(
    'after "%s": a new run is refused (exit 2) naming resume and finish',
    async (reached) => {
      const w = interruptedStart(reached);
      const head = w.git('rev-parse', 'HEAD');
      const result = await w.loop('run');
      expect(result.exitCode).toBe(2);
      expect(result.stderr).toContain(`ralphtool resume ${CHANGE}`);
      expect(result.stderr).toContain(`ralphtool finish ${CHANGE}`);
      expect(w.git('rev-parse', 'HEAD')).toBe(head);
      expect(w.state()).toMatchObject({ step: { op: 'start' }, status: 'active' });
    },
  );

  it.each(POINTS)(
    'after "%s": resume completes the start and the change (exit 0)',
    async (reached) => {
      const w = interruptedStart(reached);
      const mainBefore = w.sha('main');
      const status = await w.statusJson();
      expect(status.runs[0]).toMatchObject({ change: CHANGE, state: 'interrupted' });

      const result = await w.loop('resume');
      expect(result.exitCode, result.stderr).toBe(0);
      expect(result.stderr).toContain('took over the lock');
      expect(w.currentBranch()).toBe(w.branch);
      expect(w.subjects(`main..${w.branch}`)).toEqual([
        'initial state',
        'checkpoint: 1',
        'checkpoint: 2',
      ]);
      expect(w.sha('main')).toBe(mainBefore);
      const base = w.sha(`${w.branch}~2`);
      expect(w.userFilesIn(base)).toMatchObject({
        'docs/draft.md': 'draft v2, not committed yet\n',
        'notes/todo.txt': 'my own notes\n',
      });
      expect(w.treeFiles(base)).not.toContain('.env');
      expect(w.status()).toEqual([]);
      expect(w.userFilesChanged()).toEqual([]);
      expect(w.state()).toMatchObject({
        status: 'finished',
        choice: 'keep',
        outcome: 'complete',
        step: null,
        baseSha: base,
        checkpointSha: w.sha(w.branch),
      });
    },
  );

  it.each(POINTS)(
    'after "%s": finish --cleanup puts the user back on main as before',
    async (reached) => {
      const w = interruptedStart(reached);
      const mainBefore = w.sha('main');
      const result = await w.cli(['finish', CHANGE, '--cleanup']);
      expect(result.exitCode, result.stderr).toBe(0);
      expect(w.currentBranch()).toBe('main');
      expect(w.sha('main')).toBe(mainBefore);
      expect(w.branchExists(w.branch)).toBe(false);
      expect(w.status().sort()).toEqual([' M docs/draft.md', '?? notes/todo.txt']);
      expect(w.userFilesChanged()).toEqual([]);
      expect(w.state()).toMatchObject({ status: 'finished', choice: 'cleanup', step: null });
    },
  );
});
