import { afterEach, describe, expect, it } from 'vitest';
import { ALL_SUCCEED, FaultWorld, type Step } from './support/world.js';

// Row 12: the agent deletes tasks.md or renames the change folder, then says COMPLETE. The
// attempt fails with a reason that says what happened, is reverted, and the retry succeeds.

const CHANGE = 'change-vanished';
const FOLDER = `openspec/changes/${CHANGE}`;

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

const CASES: { name: string; steps: Step[]; reason: RegExp }[] = [
  {
    name: 'deletes tasks.md',
    steps: [{ delete: `${FOLDER}/tasks.md` }],
    reason: /tasks\.md/,
  },
  {
    name: 'renames the change folder',
    steps: [{ git: ['mv', FOLDER, 'openspec/changes/renamed-change'] }],
    reason: /tasks\.md|change/,
  },
  {
    name: 'deletes the whole change folder',
    steps: [{ delete: FOLDER }],
    reason: /tasks\.md|change/,
  },
];

describe('the change disappears under the loop', () => {
  it.each(CASES)(
    '$name then COMPLETE: failed with a clear reason, reverted, retried',
    async ({ steps, reason }) => {
      world = new FaultWorld(CHANGE, 2).scenario({
        '1-1': [
          { write: 'src/one.txt', content: 'one\n' },
          { tick: 'all' },
          ...steps,
          { signal: 'COMPLETE' },
        ],
        ...ALL_SUCCEED,
      });
      const w = world;
      const result = await w.loop('run');
      expect(result.exitCode, result.stderr).toBe(0);

      const failed = result.events().filter((e) => e.type === 'attempt.failed');
      expect(failed).toHaveLength(1);
      expect(failed[0]).toMatchObject({ storyId: '1', attempt: 1 });
      expect(String(failed[0]?.reason)).toMatch(reason);
      expect(String(failed[0]?.reason).length).toBeGreaterThan(10);

      expect(w.exists(`${FOLDER}/tasks.md`)).toBe(true);
      expect(w.exists('openspec/changes/renamed-change')).toBe(false);
      expect(w.subjects(`main..${w.branch}`)).toEqual([
        'initial state',
        'checkpoint: 1',
        'checkpoint: 2',
      ]);
      expect(w.treeFiles(w.branch)).toContain(`${FOLDER}/tasks.md`);
      expect(w.status()).toEqual([]);
      expect(w.userFilesChanged()).toEqual([]);
      expect(w.state().stories['1']).toMatchObject({ completed: true, attempts: 2 });
    },
  );
});
