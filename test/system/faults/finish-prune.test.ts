import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { crashWhileAgentRuns } from './support/crash.js';
import { FaultWorld } from './support/world.js';

// Class 4, "the world around the run": `finish --cleanup|--keep --prune` after a run that
// stopped half-way, with the user's own edits in the work tree. finish saves what it finds
// under an attempt ref before reverting; --prune must never delete that ref a moment later,
// and says which refs it kept.

const CHANGE = 'finish-prune';
const ATTEMPTS = `refs/ralphtool/${CHANGE}/attempts`;

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

/** A run that failed story 1 once, completed it, then died while story 2's agent worked. */
async function interruptedRun(agentWrites: boolean): Promise<FaultWorld> {
  world = new FaultWorld(CHANGE, 2).scenario({
    '1-1': [{ write: 'src/bad.txt', content: 'bad\n' }, { signal: 'FAILED: first try' }],
    '1-2': [{ write: 'src/one.txt', content: 'one\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
    '2-1': [
      ...(agentWrites ? [{ write: 'src/two.txt', content: 'half\n' }] : []),
      { say: 'working' },
      { hang: true },
    ],
  });
  await crashWhileAgentRuns(world, 'working');
  return world;
}

/** The user's edits made after the crash: a changed tracked file and a new untracked one. */
function userEdits(w: FaultWorld): void {
  w.write('docs/draft.md', 'draft v3, written while the run was stopped\n');
  w.write('notes/after-crash.txt', 'new notes\n');
}

const CHOICES = [
  { choice: '--cleanup', branch: 'main' },
  { choice: '--keep', branch: `ralph/${CHANGE}` },
] as const;

describe('finish --prune with the user edits in the work tree', () => {
  it.each(CHOICES)('$choice --prune keeps the ref holding the edits and names it', async (c) => {
    const w = await interruptedRun(true);
    userEdits(w);
    const result = await w.cli(['finish', CHANGE, c.choice, '--prune']);
    expect(result.exitCode, result.stderr).toBe(0);

    const saved = `${ATTEMPTS}/2-1`;
    expect(w.attemptRefs()).toEqual([saved]);
    expect(result.stderr).toContain(`ralphtool: pruned 1 attempt ref(s) and the run folder`);
    expect(result.stderr).toContain(`ralphtool: kept ${saved}:`);
    // Every byte the user (and the agent) had in the tree is in the kept ref.
    expect(w.git('show', `${saved}:docs/draft.md`)).toBe(
      'draft v3, written while the run was stopped\n',
    );
    expect(w.git('show', `${saved}:notes/after-crash.txt`)).toBe('new notes\n');
    expect(w.git('show', `${saved}:src/two.txt`)).toBe('half\n');
    expect(existsSync(w.runDir)).toBe(false);
    expect(w.currentBranch()).toBe(c.branch);
  });

  it('the user went back to main with edits of their own: kept and named too', async () => {
    const w = await interruptedRun(false);
    w.git('checkout', '-q', 'main', '--');
    userEdits(w);
    const result = await w.cli(['finish', CHANGE, '--cleanup', '--prune']);
    expect(result.exitCode, result.stderr).toBe(0);
    const saved = `${ATTEMPTS}/2-1`;
    expect(w.attemptRefs()).toEqual([saved]);
    expect(result.stderr).toContain(`ralphtool: kept ${saved}:`);
    expect(w.git('show', `${saved}:docs/draft.md`)).toBe(
      'draft v3, written while the run was stopped\n',
    );
    expect(w.git('show', `${saved}:notes/after-crash.txt`)).toBe('new notes\n');
    expect(w.currentBranch()).toBe('main');
  });

  it('nothing found in the work tree: every attempt ref is pruned, none kept', async () => {
    const w = await interruptedRun(false);
    const result = await w.cli(['finish', CHANGE, '--cleanup', '--prune']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(w.attemptRefs()).toEqual([]);
    expect(result.stderr).toContain('ralphtool: pruned 1 attempt ref(s) and the run folder');
    expect(result.stderr).not.toContain('kept');
    expect(w.userFilesChanged()).toEqual([]);
  });
});
