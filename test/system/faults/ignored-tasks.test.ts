import { appendFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { crashWhileAgentRuns } from './support/crash.js';
import { ALL_SUCCEED, FaultWorld } from './support/world.js';

// Class 4, "the world around the run": the repository ignores the change's tasks.md
// (`openspec/` in .gitignore, only the change folder, only tasks.md, or .git/info/exclude).
// The file is then in no checkpoint and git never reverts it: ralphtool keeps its bytes at each
// checkpoint itself, so a failed attempt's ticks are reverted (and saved with the attempt), they
// never make a story complete, and an accepted story's ticks survive the next story's revert.

const CHANGE = 'ignored-tasks';
const TASKS = `openspec/changes/${CHANGE}/tasks.md`;

const WAYS = [
  { name: 'openspec/ in .gitignore', file: '.gitignore', rule: 'openspec/' },
  {
    name: 'the change folder in .gitignore',
    file: '.gitignore',
    rule: `/openspec/changes/${CHANGE}/`,
  },
  { name: 'tasks.md in .gitignore', file: '.gitignore', rule: 'tasks.md' },
  { name: 'openspec/ in .git/info/exclude', file: '.git/info/exclude', rule: 'openspec/' },
] as const;

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

/** A world whose openspec/ is untracked and ignored the given way. */
function ignoredWorld(way: (typeof WAYS)[number], storyCount: number): FaultWorld {
  world = new FaultWorld(CHANGE, storyCount);
  const w = world;
  w.git('rm', '-r', '-q', '--cached', 'openspec');
  const file = path.join(w.dir, way.file);
  mkdirSync(path.dirname(file), { recursive: true });
  appendFileSync(file, `${way.rule}\n`);
  if (way.file === '.gitignore') w.git('add', '.gitignore');
  w.git('commit', '-q', '-m', 'openspec is not versioned here');
  expect(w.git('check-ignore', TASKS).trim()).toBe(TASKS);
  w.rebaseline();
  return w;
}

const TICK_AND_FAIL = [
  { write: 'src/bad.txt', content: 'bad\n' },
  { tick: 'all' as const },
  { signal: 'FAILED: ticked but not done' },
];

describe.each(WAYS)('tasks.md ignored ($name)', (way) => {
  it('a failed attempt that ticked is reverted with its ticks, and the story is tried again', async () => {
    const w = ignoredWorld(way, 2);
    w.scenario({ '1-1': TICK_AND_FAIL, ...ALL_SUCCEED });
    const before = w.read(TASKS);
    const result = await w.loop('run');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.invoked('1', 2)).toBe(true);
    expect(w.state().stories['1']).toMatchObject({ completed: true, attempts: 2 });
    // The agent's ticked file is saved with its attempt; the file itself was put back.
    const saved = `refs/ralphtool/${CHANGE}/attempts/1-1`;
    expect(w.git('show', `${saved}:${TASKS}`)).toContain('- [x] 1.1');
    expect(w.git('show', `${saved}:src/bad.txt`)).toBe('bad\n');
    expect(w.read(TASKS)).toBe(
      before.replace('- [ ] 1.1', '- [x] 1.1').replace('- [ ] 2.1', '- [x] 2.1'),
    );
    // Still ignored, so still in no checkpoint.
    expect(w.treeFiles(w.branch)).not.toContain(TASKS);
    expect(w.userFilesChanged()).toEqual([]);
  });

  it('with no retry left, the ticks of the failed attempt do not make the run complete', async () => {
    const w = ignoredWorld(way, 1);
    w.scenario({ '1-1': TICK_AND_FAIL });
    const before = w.read(TASKS);
    const result = await w.loop('run', ['--max-retries', '0']);
    expect(result.exitCode, result.stderr).toBe(3);
    expect(w.state()).toMatchObject({ outcome: 'max-retries' });
    expect(w.read(TASKS)).toBe(before);
  });

  it("an accepted story's ticks survive the next story's revert", async () => {
    const w = ignoredWorld(way, 2);
    w.scenario({ '2-1': TICK_AND_FAIL, ...ALL_SUCCEED });
    const result = await w.loop('run');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.invoked('1', 2)).toBe(false);
    expect(w.invoked('2', 2)).toBe(true);
    expect(w.read(TASKS)).toContain('- [x] 1.1');
    expect(w.read(TASKS)).toContain('- [x] 2.1');
    expect(w.state().stories['2']).toMatchObject({ completed: true, attempts: 2 });
  });
});

describe('tasks.md ignored, the run killed after the agent ticked', () => {
  it('resume reverts the ticks (saved with the attempt) and tries the story again', async () => {
    const w = ignoredWorld(WAYS[0], 1);
    w.scenario({
      '1-1': [{ tick: 'all' }, { say: 'ticked' }, { hang: true }],
      ...ALL_SUCCEED,
    });
    const before = w.read(TASKS);
    await crashWhileAgentRuns(w, 'ticked');
    expect(w.read(TASKS)).not.toBe(before);
    const result = await w.loop('resume');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.invoked('1', 2)).toBe(true);
    expect(w.git('show', `refs/ralphtool/${CHANGE}/attempts/1-1:${TASKS}`)).toContain('- [x] 1.1');
    expect(w.read(TASKS)).toContain('- [x] 1.1');
    expect(w.userFilesChanged()).toEqual([]);
  });
});

describe('tasks.md tracked inside an ignored folder', () => {
  it('git reverts it as any tracked file: the failed ticks are gone, the story tried again', async () => {
    world = new FaultWorld(CHANGE, 1);
    const w = world;
    appendFileSync(path.join(w.dir, '.gitignore'), 'openspec/\n');
    w.git('commit', '-q', '-am', 'ignore openspec, whose files stay tracked');
    w.rebaseline();
    w.scenario({ '1-1': TICK_AND_FAIL, ...ALL_SUCCEED });
    const result = await w.loop('run');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.invoked('1', 2)).toBe(true);
    expect(w.git('show', `${w.branch}:${TASKS}`)).toContain('- [x] 1.1');
  });
});
