import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { LiveCli } from '../../support/live-cli.js';
import { eventually, groupMembers, killGroup } from '../../support/processes.js';
import { crashWhileAgentRuns } from './support/crash.js';
import { agentFlags, FaultWorld, succeed } from './support/world.js';
import {
  adviceCommand,
  followAdvice,
  gitIn,
  runStatus,
  treeFingerprint,
} from './support/ways-out.js';

// Class 6: the run folder is shared by every worktree of a repository, so `status`, `resume`
// and `finish` can be typed in a work tree that is not the run's. They must never reset,
// clean or check out that other tree: status shows the run's path and names the command with
// `-C <path>`; resume and finish refuse (exit 2) naming it. Following the advice from the
// wrong tree ends the run in its own tree, and the other tree stays byte for byte as it was.

const CHANGE = 'linked';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

const SCENARIO = {
  '1-1': succeed('src/one.txt', 'one\n'),
  '2-1': [{ write: 'src/two.txt', content: 'half\n' }, { say: 'working' }, { hang: true }],
  '2-*': succeed('src/two.txt', 'two\n'),
};

/** A linked worktree of the world's repository on a new branch `feature`, with files of every kind. */
function addLinked(w: FaultWorld): string {
  const linked = path.join(w.scratch, 'linked');
  w.git('worktree', 'add', '-q', '-b', 'feature', linked, 'main');
  const write = (file: string, content: string): void => {
    mkdirSync(path.dirname(path.join(linked, file)), { recursive: true });
    writeFileSync(path.join(linked, file), content);
  };
  write('docs/draft.md', 'draft in the linked tree\n');
  write('notes/linked.txt', 'linked notes\n');
  write('.env', 'LINKED_SECRET=1\n');
  return linked;
}

/** `run` in `dir`, killed -9 (agent too) while story 2's agent works. */
async function crashIn(w: FaultWorld, dir: string): Promise<void> {
  if (dir === w.dir) {
    await crashWhileAgentRuns(w, 'working');
    return;
  }
  const args = ['run', CHANGE, ...agentFlags(), '--json', '--on-complete', 'keep'];
  const live = new LiveCli(args, dir, w.env());
  await live.waitFor((e) => e.type === 'agent.message' && e.text === 'working');
  await live.kill9();
  const pgid = w.state().agentPgid as number | null;
  if (pgid !== null) {
    w.strayGroups.push(pgid);
    killGroup(pgid);
    await eventually(() => groupMembers(pgid).length === 0);
  }
}

describe.each([
  { runIn: 'linked', askFrom: 'main' },
  { runIn: 'main', askFrom: 'linked' },
] as const)('a run started in the $runIn worktree, asked about from the $askFrom one', (c) => {
  async function setUp(): Promise<{ w: FaultWorld; runDir: string; askDir: string }> {
    world = new FaultWorld(CHANGE, 2).scenario(SCENARIO);
    const w = world;
    const linked = addLinked(w);
    const runDir = c.runIn === 'linked' ? linked : w.dir;
    const askDir = c.askFrom === 'linked' ? linked : w.dir;
    await crashIn(w, runDir);
    expect(w.state().worktree).toMatchObject({ root: runDir });
    return { w, runDir, askDir };
  }

  it('resume and finish refuse (exit 2) naming `ralphtool -C <path>`, touching neither tree', async () => {
    const { w, runDir, askDir } = await setUp();
    const asked = treeFingerprint(askDir);
    const running = treeFingerprint(runDir);
    for (const [args, retry] of [
      [['resume', CHANGE, ...agentFlags()], `resume ${CHANGE}`],
      [['finish', CHANGE, '--cleanup'], `finish ${CHANGE} --cleanup`],
      [['finish', CHANGE, '--keep'], `finish ${CHANGE} --keep`],
    ] as const) {
      const result = await runCli(args, { cwd: askDir, env: w.env(), timeoutMs: 300_000 });
      expect(result.exitCode, result.stderr).toBe(2);
      expect(result.stderr).toContain(`ralphtool -C ${runDir} ${retry}`);
      // One line (besides the note that the dead run's lock was taken over).
      const lines = result.stderr.trim().split('\n');
      expect(lines.filter((l) => !l.includes('warning: took over'))).toHaveLength(1);
    }
    expect(treeFingerprint(askDir)).toEqual(asked);
    expect(treeFingerprint(runDir)).toEqual(running);
    expect(w.state()).toMatchObject({ status: 'active', currentStory: '2' });
  });

  it("status shows the run's worktree; following its advice ends the run there, the other tree byte-identical", async () => {
    const { w, runDir, askDir } = await setUp();
    const asked = treeFingerprint(askDir);
    const status = await runStatus(w, askDir);
    expect(status).toMatchObject({ state: 'interrupted', worktree: runDir });
    expect(adviceCommand(String(status.next))).toEqual([
      'ralphtool',
      '-C',
      runDir,
      'resume',
      CHANGE,
    ]);
    const text = await runCli(['status'], { cwd: askDir, env: w.env() });
    expect(text.stdout).toContain(`worktree ${runDir} (not this one)`);

    await followAdvice(w, askDir);
    expect(treeFingerprint(askDir)).toEqual(asked);
    expect(w.state()).toMatchObject({ status: 'finished', choice: 'keep', outcome: 'complete' });
    expect(gitIn(runDir, 'rev-parse', '--abbrev-ref', 'HEAD').trim()).toBe(w.branch);
    expect(gitIn(runDir, 'status', '--porcelain')).toBe('');
    expect(gitIn(runDir, 'show', `${w.branch}:src/two.txt`)).toBe('two\n');
    // From the run's own tree, status names no -C.
    const own = await runStatus(w, runDir);
    expect(own.worktree).toBeNull();
  });

  it('from its own worktree, resume carries on as usual', async () => {
    const { w, runDir, askDir } = await setUp();
    const asked = treeFingerprint(askDir);
    const result = await runCli(
      ['resume', CHANGE, ...agentFlags(), '--json', '--on-complete', 'keep'],
      { cwd: runDir, env: w.env(), timeoutMs: 300_000 },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    expect(treeFingerprint(askDir)).toEqual(asked);
    expect(w.state()).toMatchObject({ status: 'finished', choice: 'keep' });
  });
});

describe('a record written before runs recorded their worktree', () => {
  it('is taken to belong where its branch is checked out: resume from another tree refuses', async () => {
    world = new FaultWorld(CHANGE, 2).scenario(SCENARIO);
    const w = world;
    const linked = addLinked(w);
    await crashIn(w, linked);
    const { worktree: _dropped, ...old } = w.state();
    w.writeState(old);
    const mine = treeFingerprint(w.dir);
    const result = await w.loop('resume');
    expect(result.exitCode, result.stderr).toBe(2);
    expect(result.stderr).toContain(`ralphtool -C ${linked} resume ${CHANGE}`);
    expect(treeFingerprint(w.dir)).toEqual(mine);
    await followAdvice(w);
    expect(treeFingerprint(w.dir)).toEqual(mine);
    expect(w.state()).toMatchObject({ status: 'finished' });
  });

  it('a damaged worktree field is refused as a damaged state, naming the folder', async () => {
    world = new FaultWorld(CHANGE, 2).scenario(SCENARIO);
    const w = world;
    await crashIn(w, w.dir);
    w.writeState({ ...w.state(), worktree: { root: 42 } });
    const result = await w.loop('resume');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).toContain('worktree');
    expect(result.stderr).toContain(w.runDir);
  });
});
