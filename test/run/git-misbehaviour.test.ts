import { afterEach, describe, expect, it } from 'vitest';
import { LoopHarness } from '../support/loop-harness.js';
import { single, stories, succeed } from './helpers.js';

const CHANGE = 'rogue-agent';
const BRANCH = `ralph/${CHANGE}`;
const REF = `refs/ralphtool/${CHANGE}/attempts`;

let fixture: LoopHarness | undefined;
afterEach(() => {
  fixture?.remove();
  fixture = undefined;
});

describe('the loop: an agent that touches git itself', () => {
  it('undoes the agent’s own commit when the attempt fails, keeping it under the attempt ref', async () => {
    fixture = new LoopHarness(CHANGE, stories(1)).scenario({
      '1-1': [
        { write: 'src/rogue.txt', content: 'committed by the agent\n' },
        { git: ['add', '-A'] },
        { git: ['commit', '-q', '-m', 'agent commit'] },
        { write: 'src/after.txt', content: 'uncommitted\n' },
        { signal: 'FAILED: tests still red' },
      ],
    });
    const f = fixture;
    const result = await f.run({ maxRetries: 0, completion: 'keep' });
    expect(result.exitCode).toBe(3);
    const events = result.events();
    const base = single(events, 'run.started').baseSha;
    expect(single(events, 'checkpoint.reverted')).toMatchObject({
      toSha: base,
      savedRef: `${REF}/1-1`,
    });

    expect(f.currentBranch()).toBe(BRANCH);
    expect(f.git('rev-parse', BRANCH).trim()).toBe(base);
    expect(f.subjects(`main..${BRANCH}`)).toEqual(['initial state']);
    expect(f.status()).toEqual([]);
    expect(f.exists('src/rogue.txt')).toBe(false);
    expect(f.exists('src/after.txt')).toBe(false);
    // Nothing the agent did is lost: its commit and its uncommitted file are under the ref.
    expect(f.git('log', '--format=%s', `${REF}/1-1`)).toContain('agent commit');
    expect(f.git('show', `${REF}/1-1:src/rogue.txt`)).toBe('committed by the agent\n');
    expect(f.git('show', `${REF}/1-1:src/after.txt`)).toBe('uncommitted\n');
  });

  it('retries from the checkpoint after the agent committed, and the commit never reaches the branch', async () => {
    fixture = new LoopHarness(CHANGE, stories(1)).scenario({
      '1-1': [
        { write: 'src/rogue.txt', content: 'rogue\n' },
        { git: ['add', '-A'] },
        { git: ['commit', '-q', '-m', 'agent commit'] },
        { signal: 'FAILED: broke it' },
      ],
      '1-2': succeed('src/good.txt', 'good\n'),
    });
    const f = fixture;
    const result = await f.run({ maxRetries: 1, completion: 'keep' });
    expect(result.exitCode).toBe(0);
    expect(f.subjects(`main..${BRANCH}`)).toEqual(['initial state', 'checkpoint: 1']);
    const tree = f.git('ls-tree', '-r', '--name-only', BRANCH);
    expect(tree).toContain('src/good.txt');
    expect(tree).not.toContain('src/rogue.txt');
  });

  it('goes back to the run’s branch when the agent switched to another one', async () => {
    fixture = new LoopHarness(CHANGE, stories(2)).scenario({
      '1-1': [
        { git: ['checkout', '-q', '-b', 'other'] },
        { write: 'src/elsewhere.txt', content: 'on other\n' },
        { git: ['add', '-A'] },
        { git: ['commit', '-q', '-m', 'commit on other'] },
        { write: 'src/loose.txt', content: 'loose\n' },
        { signal: 'FAILED: wrong branch' },
      ],
      '1-2': succeed('src/one.txt', 'one\n'),
      '2-1': succeed('src/two.txt', 'two\n'),
    });
    const f = fixture;
    const result = await f.run({ maxRetries: 1, completion: 'keep' });
    expect(result.exitCode).toBe(0);
    expect(f.currentBranch()).toBe(BRANCH);
    expect(f.subjects(`main..${BRANCH}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
    const tree = f.git('ls-tree', '-r', '--name-only', BRANCH);
    expect(tree).not.toContain('src/elsewhere.txt');
    expect(tree).not.toContain('src/loose.txt');
    expect(f.status()).toEqual([]);
    expect(f.git('show', `${REF}/1-1:src/elsewhere.txt`)).toBe('on other\n');
    expect(f.git('show', `${REF}/1-1:src/loose.txt`)).toBe('loose\n');
  });

  it('with cleanup, ends on main even after the agent switched branches', async () => {
    fixture = new LoopHarness(CHANGE, stories(1)).scenario({
      '1-1': [{ git: ['checkout', '-q', '-b', 'other'] }, { signal: 'FAILED: lost' }],
    });
    const f = fixture;
    const result = await f.run({ maxRetries: 0, completion: 'cleanup' });
    expect(result.exitCode).toBe(3);
    expect(f.currentBranch()).toBe('main');
    expect(f.branchExists(BRANCH)).toBe(false);
    expect(f.status()).toEqual([]);
  });

  it('accepts a story the agent committed itself as one checkpoint commit on the run’s branch', async () => {
    fixture = new LoopHarness(CHANGE, stories(1)).scenario({
      '1-1': [
        { write: 'src/self.txt', content: 'self-committed\n' },
        { tick: 'all' },
        { git: ['add', '-A'] },
        { git: ['commit', '-q', '-m', 'agent commit'] },
        { git: ['checkout', '-q', '-b', 'agent-side-branch'] },
        { write: 'src/extra.txt', content: 'extra\n' },
        { signal: 'COMPLETE' },
      ],
    });
    const f = fixture;
    const result = await f.run({ maxRetries: 0, completion: 'keep' });
    expect(result.exitCode).toBe(0);
    expect(f.currentBranch()).toBe(BRANCH);
    // Keep means one commit per story, whatever the agent did with git.
    expect(f.subjects(`main..${BRANCH}`)).toEqual(['initial state', 'checkpoint: 1']);
    const tree = f.git('ls-tree', '-r', '--name-only', BRANCH);
    expect(tree).toContain('src/self.txt');
    expect(tree).toContain('src/extra.txt');
    expect(f.status()).toEqual([]);
  });
});
