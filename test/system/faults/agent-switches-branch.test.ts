import { afterEach, describe, expect, it } from 'vitest';
import { FaultWorld, succeed, USER_FILES, type Step } from './support/world.js';

// Class 4, "the world around the run": mid-attempt, the agent checks out another branch
// (the user's own `main`, a new branch made from it, `reset --hard main`), carrying its work or
// forcing over it, or stashes its work across the switch. The user's uncommitted and untracked
// files live in the run's "initial state" commit, not on `main`: git removes them from the work
// tree at the switch. Nothing of the user's may be recorded as deleted in a checkpoint, and
// every user file comes back byte-identical after cleanup.

const CHANGE = 'agent-switches';
const TASKS = `openspec/changes/${CHANGE}/tasks.md`;

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

const WORK: Step[] = [{ write: 'src/work.txt', content: 'agent work\n' }];

const SWITCHES: { name: string; steps: Step[] }[] = [
  { name: 'git checkout main', steps: [{ git: ['checkout', '-q', 'main'] }, ...WORK] },
  { name: 'git switch -c x main', steps: [{ git: ['switch', '-q', '-c', 'x', 'main'] }, ...WORK] },
  { name: 'git reset --hard main', steps: [{ git: ['reset', '-q', '--hard', 'main'] }, ...WORK] },
  {
    name: 'work carried across git checkout main',
    steps: [...WORK, { git: ['checkout', '-q', 'main'] }],
  },
  {
    name: "git checkout -f main over the agent's edit of a user file",
    steps: [
      { append: 'docs/draft.md', content: 'agent edit, discarded by -f\n' },
      { git: ['checkout', '-q', '-f', 'main'] },
      ...WORK,
    ],
  },
  {
    name: 'work stashed, main checked out, stash popped',
    steps: [
      ...WORK,
      { git: ['stash', 'push', '-q', '-u'] },
      { git: ['checkout', '-q', 'main'] },
      { git: ['stash', 'pop', '-q'] },
    ],
  },
];

/** The user's files as they were when the run started (what every checkpoint must hold). */
function userContent(): Record<string, string> {
  return {
    'docs/stable.md': 'stable docs\n',
    'bin/tool.sh': '#!/bin/sh\necho tool\n',
    '.gitignore': '.env\nnode_modules/\nbuild/\n',
    'docs/draft.md': 'draft v2, not committed yet\n',
    'notes/todo.txt': 'my own notes\n',
  };
}

describe('the agent switches branches mid-attempt, then completes the story', () => {
  it.each(SWITCHES)('$name: the checkpoint keeps every user file', async ({ steps }) => {
    world = new FaultWorld(CHANGE, 2).scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
      '2-1': [...steps, { tick: 'all' }, { signal: 'COMPLETE' }],
    });
    const w = world;
    const result = await w.loop('run', [], { onComplete: 'cleanup' });
    expect(result.exitCode, result.stderr).toBe(0);

    const checkpoint = String(w.state().checkpointSha);
    expect(w.git('log', '-1', '--format=%s', checkpoint).trim()).toBe('checkpoint: 2');
    // The story's checkpoint adds the agent's work and ticks; it deletes or reverts nothing.
    const changed = w.git('diff', '--name-status', '--no-renames', `${checkpoint}~1`, checkpoint);
    expect(changed.trim().split('\n').sort()).toEqual([`A\tsrc/work.txt`, `M\t${TASKS}`]);
    expect(w.userFilesIn(checkpoint)).toEqual(userContent());
    const tasks = w.git('show', `${checkpoint}:${TASKS}`);
    expect(tasks).toContain('- [x] 1.1');
    expect(tasks).toContain('- [x] 2.1');
    // After cleanup: back on main, every user file byte-identical, the work uncommitted.
    expect(w.currentBranch()).toBe('main');
    expect(w.userFilesChanged()).toEqual([]);
    expect(w.read('src/work.txt')).toBe('agent work\n');
    expect(w.read('src/one.txt')).toBe('one\n');
  });
});

describe('the agent switches branches mid-attempt, then fails', () => {
  it.each(SWITCHES)('$name: reverted, every user file back, the retry succeeds', async (s) => {
    world = new FaultWorld(CHANGE, 2).scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
      '2-1': [...s.steps, { tick: 'all' }, { signal: 'FAILED: wrong branch' }],
      '2-2': succeed('src/two.txt', 'two\n'),
    });
    const w = world;
    const result = await w.loop('run', [], { onComplete: 'cleanup' });
    expect(result.exitCode, result.stderr).toBe(0);
    const checkpoint = String(w.state().checkpointSha);
    const changed = w.git('diff', '--name-status', '--no-renames', `${checkpoint}~1`, checkpoint);
    expect(changed.trim().split('\n').sort()).toEqual([`A\tsrc/two.txt`, `M\t${TASKS}`]);
    expect(w.userFilesIn(checkpoint)).toEqual(userContent());
    expect(w.git('show', `refs/ralphtool/${CHANGE}/attempts/2-1:src/work.txt`)).toBe(
      'agent work\n',
    );
    expect(w.currentBranch()).toBe('main');
    expect(w.userFilesChanged()).toEqual([]);
    expect(w.exists('src/work.txt')).toBe(false);
    for (const file of USER_FILES.ignored) expect(w.exists(file)).toBe(true);
  });
});
