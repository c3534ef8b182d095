import { afterEach, describe, expect, it } from 'vitest';
import { ALL_SUCCEED, FaultWorld, type Step } from './support/world.js';

// Row 4: the agent deletes the run's branch, resets it elsewhere, checks out another branch,
// stashes, creates tags, or rewrites tasks.md into garbage. The revert restores the checkpoint
// and the next attempt succeeds.

const CHANGE = 'agent-git';
const BRANCH = `ralph/${CHANGE}`;

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

const WORK: Step[] = [
  { write: 'src/work.txt', content: 'agent work\n' },
  { append: 'src/app.txt', content: 'agent edit\n' },
];

const MISDEEDS: { name: string; steps: Step[] }[] = [
  {
    name: 'deletes the run branch (from a detached HEAD)',
    steps: [...WORK, { git: ['checkout', '-q', '--detach'] }, { git: ['branch', '-D', BRANCH] }],
  },
  {
    name: 'resets the run branch to main',
    steps: [...WORK, { git: ['reset', '-q', '--hard', 'main'] }],
  },
  {
    name: 'commits, then resets the branch elsewhere with update-ref',
    steps: [
      ...WORK,
      { git: ['add', '-A'] },
      { git: ['commit', '-q', '-m', 'agent commit'] },
      { git: ['update-ref', `refs/heads/${BRANCH}`, 'main'] },
    ],
  },
  {
    name: 'checks out another branch and commits there',
    steps: [
      { git: ['checkout', '-q', '-b', 'agent-branch'] },
      ...WORK,
      { git: ['add', '-A'] },
      { git: ['commit', '-q', '-m', 'on the agent branch'] },
    ],
  },
  {
    name: 'stashes its work (untracked files too)',
    steps: [
      ...WORK,
      { git: ['stash', 'push', '-u', '-q'] },
      { write: 'src/after.txt', content: 'x\n' },
    ],
  },
  {
    name: 'creates tags',
    steps: [
      ...WORK,
      { git: ['tag', 'agent-light'] },
      { git: ['tag', '-a', 'agent-annotated', '-m', 'a'] },
    ],
  },
  {
    name: 'rewrites tasks.md into garbage',
    steps: [
      ...WORK,
      {
        write: `openspec/changes/${CHANGE}/tasks.md`,
        content: '\u0000\u00ff garbage ]]] [[[ \n- [',
      },
    ],
  },
  {
    name: 'leaves a merge in progress',
    steps: [
      { git: ['checkout', '-q', '-b', 'side'] },
      { write: 'src/app.txt', content: 'side\n' },
      { git: ['commit', '-q', '-am', 'side'] },
      { git: ['checkout', '-q', BRANCH] },
      { write: 'src/app.txt', content: 'mine\n' },
      { git: ['commit', '-q', '-am', 'mine'] },
      { git: ['merge', 'side'] },
    ],
  },
];

describe('an agent that misuses git, then fails', () => {
  it.each(MISDEEDS)('$name: reverted to the checkpoint, the retry succeeds', async ({ steps }) => {
    world = new FaultWorld(CHANGE, 2).scenario({
      '1-1': [...steps, { signal: 'FAILED: I made a mess' }],
      ...ALL_SUCCEED,
    });
    const w = world;
    const result = await w.loop('run');
    expect(result.exitCode, result.stderr).toBe(0);

    expect(w.currentBranch()).toBe(BRANCH);
    expect(w.subjects(`main..${BRANCH}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
    const base = w.sha(`${BRANCH}~2`);
    expect(w.state()).toMatchObject({ baseSha: base, checkpointSha: w.sha(BRANCH) });
    expect(w.git('show', `${BRANCH}:src/app.txt`)).toBe('app v1\n');
    expect(w.treeFiles(BRANCH)).not.toContain('src/work.txt');
    expect(w.git('show', `${BRANCH}:openspec/changes/${CHANGE}/tasks.md`)).toContain('- [x] 1.1');
    expect(w.status()).toEqual([]);
    expect(w.userFilesChanged()).toEqual([]);
    expect(w.attemptRefs()).toEqual([`refs/ralphtool/${CHANGE}/attempts/1-1`]);
    expect(w.state()).toMatchObject({ status: 'finished', outcome: 'complete', step: null });
    expect(w.state().stories['1']).toMatchObject({ completed: true, attempts: 2 });
  });
});

describe('an agent that misuses git, then says COMPLETE', () => {
  it('moved to another branch and committed: the work becomes the checkpoint on the run branch', async () => {
    world = new FaultWorld(CHANGE, 1).scenario({
      '1-1': [
        { git: ['checkout', '-q', '-b', 'agent-branch'] },
        { write: 'src/work.txt', content: 'agent work\n' },
        { tick: 'all' },
        { git: ['add', '-A'] },
        { git: ['commit', '-q', '-m', 'on the agent branch'] },
        { signal: 'COMPLETE' },
      ],
    });
    const w = world;
    const result = await w.loop('run');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.currentBranch()).toBe(BRANCH);
    expect(w.subjects(`main..${BRANCH}`)).toEqual(['initial state', 'checkpoint: 1']);
    expect(w.git('show', `${BRANCH}:src/work.txt`)).toBe('agent work\n');
    expect(w.status()).toEqual([]);
    expect(w.userFilesChanged()).toEqual([]);
  });

  it('deleted the run branch from a detached HEAD: the story is still checkpointed on a recreated branch', async () => {
    world = new FaultWorld(CHANGE, 1).scenario({
      '1-1': [
        { write: 'src/work.txt', content: 'agent work\n' },
        { tick: 'all' },
        { git: ['checkout', '-q', '--detach'] },
        { git: ['branch', '-D', BRANCH] },
        { signal: 'COMPLETE' },
      ],
    });
    const w = world;
    const result = await w.loop('run');
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.currentBranch()).toBe(BRANCH);
    expect(w.subjects(`main..${BRANCH}`)).toEqual(['initial state', 'checkpoint: 1']);
    expect(w.git('show', `${BRANCH}:src/work.txt`)).toBe('agent work\n');
    expect(w.status()).toEqual([]);
    expect(w.userFilesChanged()).toEqual([]);
  });
});
