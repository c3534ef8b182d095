import { afterEach, describe, expect, it } from 'vitest';
import { agentFlags, FaultWorld, succeed } from '../faults/support/world.js';

// docs/contract.md, "Keep": a run that finished and was kept holds work that is on its branch
// only. `run`, `resume` and `finish` of the change say where it is and how to bring it home,
// never to delete the branch, and the commands they name work as printed.

const CHANGE = 'kept-done';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

/** A run that accepted both stories and was kept for good; the user is back on main. */
async function keptWorld(): Promise<FaultWorld> {
  const w = (world = new FaultWorld(CHANGE, 2).scenario({
    '1-1': succeed('src/one.txt', 'one\n'),
    '2-1': succeed('src/two.txt', 'two\n'),
  }));
  expect((await w.loop('run')).exitCode).toBe(0);
  w.git('switch', '-q', 'main');
  w.rebaseline();
  return w;
}

/** The commands in backquotes of a refusal, in order. */
function named(stderr: string): string[] {
  return [...stderr.matchAll(/`([^`]+)`/g)].map((m) => m[1] ?? '');
}

describe('a finished, kept run', () => {
  it('run, resume and finish of the change say where its work is; nothing moves', async () => {
    const w = await keptWorld();
    const refs = w.git('for-each-ref');
    for (const args of [
      ['run', CHANGE, ...agentFlags()],
      ['resume', CHANGE],
      ['finish', CHANGE, '--keep'],
      ['finish', CHANGE, '--cleanup'],
    ]) {
      const refused = await w.cli(args);
      expect(refused.exitCode, args.join(' ')).toBe(2);
      const line = refused.stderr.trim();
      expect(line).toContain(`finished and kept its work on ralph/${CHANGE}`);
      expect(line).not.toContain('branch -D');
      expect(named(line)).toEqual([`git merge ralph/${CHANGE}`, `ralphtool run ${CHANGE} --force`]);
      expect(w.git('for-each-ref')).toBe(refs);
      expect(w.currentBranch()).toBe('main');
    }
  });

  it('`git merge ralph/<change>` as named brings the work home', async () => {
    const w = await keptWorld();
    const refused = await w.cli(['run', CHANGE, ...agentFlags()]);
    const [merge] = named(refused.stderr);
    expect(merge).toBe(`git merge ralph/${CHANGE}`);
    w.git(...(merge ?? '').split(' ').slice(1));
    expect(w.read('src/one.txt')).toBe('one\n');
    expect(w.read('src/two.txt')).toBe('two\n');
  });

  it('`ralphtool run <change> --force` as named (with the run options) starts again, the old tip saved', async () => {
    const w = await keptWorld();
    const oldTip = w.git('rev-parse', `ralph/${CHANGE}`).trim();
    const refused = await w.cli(['run', CHANGE, ...agentFlags()]);
    const force = named(refused.stderr)[1] ?? '';
    const again = await w.cli([
      ...force.split(' ').slice(1),
      ...agentFlags(),
      '--on-complete',
      'keep',
    ]);
    expect(again.exitCode, again.stderr).toBe(0);
    const saved = w
      .git('for-each-ref', '--format=%(objectname)', `refs/ralphtool/${CHANGE}/forced/`)
      .split('\n');
    expect(saved).toContain(oldTip);
  });
});
