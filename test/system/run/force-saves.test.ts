import { afterEach, describe, expect, it } from 'vitest';
import { agentFlags, FaultWorld, succeed } from '../faults/support/world.js';

// `run --force` on a branch a finished run kept: the branch is reset for the new run, but
// nothing is dropped. Its old tip and the old run's attempt refs are saved under one ref
// prefix, named on stdout (text) and in a `run.forced` event (--json).

const CHANGE = 'forced-again';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

/** A run that accepted story 1, failed story 2 once and was kept for good; the user is on main. */
async function keptBranchWorld(): Promise<{ w: FaultWorld; oldTip: string; oldAttempt: string }> {
  const w = new FaultWorld(CHANGE, 2).scenario({
    '1-1': succeed('src/one.txt', 'one\n'),
    '2-*': [{ write: 'src/two.txt', content: 'failed two\n' }, { signal: 'FAILED: no' }],
  });
  world = w;
  expect((await w.loop('run', ['--max-retries', '0'])).exitCode).toBe(3);
  expect((await w.cli(['finish', CHANGE, '--keep'])).exitCode).toBe(0);
  const oldTip = w.git('rev-parse', w.branch).trim();
  const oldAttempt = w.git('rev-parse', `refs/ralphtool/${CHANGE}/attempts/2-1`).trim();
  w.git('switch', '-q', 'main');
  w.rebaseline();
  return { w, oldTip, oldAttempt };
}

function forcedRefs(w: FaultWorld): string[] {
  return w
    .git('for-each-ref', '--format=%(refname)', `refs/ralphtool/${CHANGE}/forced/`)
    .split('\n')
    .filter((line) => line !== '');
}

describe('run --force on a kept branch', () => {
  it('is refused without --force, naming branch -D and --force; nothing moves', async () => {
    const { w } = await keptBranchWorld();
    const refs = w.git('for-each-ref');
    const refused = await w.loop('run');
    expect(refused.exitCode).toBe(2);
    expect(refused.stderr).toContain('--force');
    expect(w.git('for-each-ref')).toBe(refs);
    expect(w.currentBranch()).toBe('main');
  });

  it('--json: saves the old tip and attempt refs under forced/<ms>/ and says so in a run.forced event', async () => {
    const { w, oldTip, oldAttempt } = await keptBranchWorld();
    w.scenario({ '*': succeed('src/again.txt', 'again\n') });
    const forced = await w.loop('run', ['--force']);
    expect(forced.exitCode, forced.stderr).toBe(0);

    const event = forced.events().find((e) => e.type === 'run.forced');
    expect(event).toMatchObject({ branch: w.branch, oldSha: oldTip, attemptRefs: 1 });
    const savedRef = String(event?.savedRef);
    expect(savedRef).toMatch(new RegExp(`^refs/ralphtool/${CHANGE}/forced/\\d+/branch$`));
    const prefix = savedRef.slice(0, -'branch'.length);
    expect(forcedRefs(w)).toEqual([`${prefix}attempts/2-1`, savedRef]);
    // The old commits are reachable from the saved refs, not only from the reflog.
    expect(w.git('rev-parse', savedRef).trim()).toBe(oldTip);
    expect(w.git('rev-parse', `${prefix}attempts/2-1`).trim()).toBe(oldAttempt);
    expect(w.git('show', `${prefix}attempts/2-1:src/two.txt`)).toBe('failed two\n');
    // The new run starts from main with attempt refs of its own.
    expect(w.subjects(`main..${w.branch}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
    expect(w.git('merge-base', '--is-ancestor', 'main', w.branch)).toBe('');
    expect(w.git('for-each-ref', `refs/ralphtool/${CHANGE}/attempts/`)).toBe('');
    expect(w.userFilesChanged()).toEqual([]);
  });

  it('text mode names the saved ref on stdout; finish --prune leaves the forced refs alone', async () => {
    const { w, oldTip } = await keptBranchWorld();
    w.scenario({ '*': succeed('src/again.txt', 'again\n') });
    const forced = await w.cli([
      'run',
      CHANGE,
      '--force',
      '--on-complete',
      'keep',
      ...agentFlags(),
    ]);
    expect(forced.exitCode, forced.stderr).toBe(0);
    const [savedRef] = forcedRefs(w).filter((ref) => ref.endsWith('/branch'));
    expect(savedRef).toBeDefined();
    expect(forced.stdout).toContain(savedRef);
    expect(forced.stdout).toContain(oldTip.slice(0, 8));

    w.git('switch', '-q', 'main');
    expect((await w.cli(['finish', CHANGE, '--prune'])).exitCode).toBe(0);
    expect(w.git('rev-parse', String(savedRef)).trim()).toBe(oldTip);
  });
});
