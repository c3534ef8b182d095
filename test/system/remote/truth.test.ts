import { existsSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliRun } from '../../support/cli.js';
import { fakeAgentFlags } from '../../support/fake-agent.js';
import { LiveCli } from '../../support/live-cli.js';
import { printedCommands } from '../../support/printed-command.js';
import { sh } from '../../support/temp-repo.js';
import { stories, succeed, type Step } from '../../run/helpers.js';
import { crashOnA, remoteState, RemoteWorld, type Machine } from './world.js';

// The remote is the truth for a run that pushes (docs/contract.md, "The remote is the truth"):
// a machine whose copy of the run is behind the remote never redoes recorded work nor pushes over
// it, a branch someone else moved is never pushed over, and `--from` never drops local commits.
// Every way on ralphtool prints is run here exactly as printed.

const CHANGE = 'truth';
let world: RemoteWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

/** The one printed `ralphtool …` command of a refusal, as words (`"…"` filled in with `answer`). */
function advice(result: CliRun, answer = 'blue'): string[] {
  const commands = printedCommands(result.stderr, 'ralphtool');
  expect(commands.length, result.stderr).toBeGreaterThan(0);
  return (commands[0] ?? []).map((word) => (word === '…' ? answer : word));
}

/**
 * Everything about a machine's repository a refusal must leave as it was (the copies of the
 * remote's refs read into `refs/ralphtool-remote/` aside: a cache of what the remote holds).
 */
function snapshot(m: Machine): string {
  return [
    m
      .git('for-each-ref', '--format=%(refname) %(objectname)')
      .split('\n')
      .filter((line) => !line.startsWith('refs/ralphtool-remote/'))
      .join('\n'),
    m.git('status', '--porcelain', '--untracked-files=all'),
    m.git('symbolic-ref', '-q', 'HEAD'),
  ].join('\n');
}

function remoteTip(w: RemoteWorld): string | undefined {
  return w.remoteRefs().get(`refs/heads/ralph/${CHANGE}`);
}

/** The fake agent's invocations so far, on every machine (they share its log folder). */
function agentRuns(w: RemoteWorld): string[] {
  return readdirSync(w.logDir).filter((name) => name.startsWith('invocation-'));
}

/**
 * Machine A (the fixture's repository) runs the change with `--push origin` and parks on a
 * question in story 2 (exit 4); story 2's second run succeeds (a resume that answers it), and
 * `extra` adds steps for later stories.
 */
async function parkedOnA(count: number, extra: Record<string, Step[]> = {}): Promise<RemoteWorld> {
  world = new RemoteWorld(CHANGE, stories(count));
  const w = world.scenario({
    '1-1': succeed('src/one.txt', 'one\n'),
    '2-1#1': [{ signal: 'BLOCKED: Which colour?' }],
    '2-1#2': succeed('src/two.txt', 'two\n'),
    ...extra,
  });
  const parked = await w.on(w.a, ['run', CHANGE, '--push', 'origin', '--on-complete', 'keep']);
  expect(parked.exitCode, parked.stderr).toBe(4);
  return w;
}

describe('a machine whose copy of the run is behind the remote', { timeout: 240_000 }, () => {
  it('after a crash while another machine finished the run: refused, then ends the same way as printed', async () => {
    world = new RemoteWorld(CHANGE, stories(3));
    const w = world;
    const a = w.a;
    await crashOnA(w, CHANGE);
    const b = w.clone('b');
    const finished = await w.on(b, ['resume', CHANGE, '--from', 'origin', '--on-complete', 'keep']);
    expect(finished.exitCode, finished.stderr).toBe(0);
    const remoteBefore = w.remoteRefs();
    const aBefore = snapshot(a);
    const agentBefore = agentRuns(w);

    // A comes back and does what its own status says: resume.
    const resumed = await w.on(a, ['resume', CHANGE]);
    expect(resumed.exitCode, resumed.stderr).toBe(1);
    expect(resumed.stderr).toContain('went on without this machine and ended there');
    expect(resumed.stderr).toContain('finished (keep), 3 stories done');
    expect(resumed.stderr).toMatch(/recorded by \S+ at \d{4}-/);
    expect(resumed.stderr).not.toMatch(/\n\s+at /);
    // Nothing redone, nothing pushed, nothing here changed, the claim given back.
    expect(agentRuns(w)).toEqual(agentBefore);
    expect(w.remoteRefs()).toEqual(remoteBefore);
    expect(snapshot(a)).toBe(aBefore);

    const way = advice(resumed);
    expect(way).toEqual(['finish', CHANGE, '--from', 'origin', '--keep']);
    const ended = await w.on(a, way);
    expect(ended.exitCode, ended.stderr).toBe(0);
    expect(ended.stderr).toContain(`the run of ${CHANGE} ended on origin (keep`);
    // A is where it started, with the kept branch as the remote has it; the remote untouched.
    expect(a.git('branch', '--show-current').trim()).toBe('main');
    expect(a.git('rev-parse', `ralph/${CHANGE}`).trim()).toBe(remoteTip(w));
    expect(w.remoteRefs()).toEqual(remoteBefore);
    expect(existsSync(path.join(a.dir, '.git', 'ralphtool', CHANGE, 'state.json'))).toBe(false);
    // A's half-done attempt, uncommitted in its work tree at the crash, is stashed and named.
    expect(ended.stderr).toContain('git stash list');
    expect(a.git('show', 'stash@{0}^3:src/two-half.txt')).toBe('half\n');
    // A's own branch and attempts are saved under one prefix, and said.
    const saved = /saved under (refs\/ralphtool\/truth\/forced\/\d+\/)/.exec(ended.stderr)?.[1];
    expect(saved, ended.stderr).toBeDefined();
    expect(a.git('log', '--format=%s', `${saved ?? ''}branch`)).toContain('checkpoint: 1');
    expect(a.git('status', '--porcelain')).toBe('');
  });

  it('while another machine carried it on and parked it on a question: refused, then continues from the remote as printed', async () => {
    const w = await parkedOnA(3, {
      '3-1#1': [{ signal: 'BLOCKED: Which shape?' }],
      '3-1#2': succeed('src/three.txt', 'three\n'),
    });
    const a = w.a;
    const b = w.clone('b');
    const onB = await w.on(b, ['resume', CHANGE, '--from', 'origin', '--answer', 'blue']);
    expect(onB.exitCode, onB.stderr).toBe(4);
    const aBefore = snapshot(a);

    const resumed = await w.on(a, ['resume', CHANGE, '--answer', 'blue']);
    expect(resumed.exitCode, resumed.stderr).toBe(1);
    expect(resumed.stderr).toContain('went on without this machine (recorded by');
    expect(resumed.stderr).toContain('not finished, 2 stories done');
    expect(snapshot(a)).toBe(aBefore);
    // Story 2 was done by B: A never ran it again.
    expect(w.invoked('2', 2)).toBe(false);

    const way = advice(resumed, 'round');
    expect(way).toEqual(['resume', CHANGE, '--from', 'origin', '--answer', 'round']);
    // `status` on A says the same, and its next: line is that command.
    const status = await w.on(a, ['status']);
    expect(status.exitCode, status.stderr).toBe(0);
    expect(status.stdout).toContain(
      'on origin: the run of truth on origin went on without this machine',
    );
    expect(status.stdout).toContain(
      `next: \`ralphtool resume ${CHANGE} --from origin --answer "…"\``,
    );
    expect(advice({ stderr: status.stdout } as CliRun, 'round')).toEqual(way);
    const goes = await w.on(a, way);
    expect(goes.exitCode, goes.stderr).toBe(0);
    expect(w.prompt('3', 1)).toContain('round');
    expect(a.git('log', '--reverse', '--format=%s', `main..ralph/${CHANGE}`).split('\n')).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
      'checkpoint: 3',
      '',
    ]);
    expect(remoteState(w, CHANGE)).toMatchObject({ status: 'finished', choice: 'keep' });
    expect(remoteTip(w)).toBe(a.git('rev-parse', `ralph/${CHANGE}`).trim());
  });
});

describe('a machine that lost its claim while asleep', { timeout: 240_000 }, () => {
  it('names the machine that took over and finished, stops, and ends the same way as printed', async () => {
    world = new RemoteWorld(CHANGE, stories(2));
    const never = path.join(world.scratch, 'never');
    const w = world.scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
      '2-1': [{ say: 'working' }, { waitFor: never }],
      '2-2': succeed('src/two.txt', 'two\n'),
    });
    const live = new LiveCli(
      ['run', CHANGE, ...fakeAgentFlags(), '--push', 'origin', '--claim-ttl', '3s', '--json'],
      w.dir,
      w.env(),
    );
    await live.waitFor((e) => e.type === 'agent.message' && e.text === 'working');
    await live.waitUntil(() => remoteState(w, CHANGE)?.currentStory === '2');
    // The laptop sleeps: ralphtool stops beating; B takes the stale claim over and finishes.
    live.signal('SIGSTOP');
    try {
      await new Promise((resolve) => setTimeout(resolve, 3_500));
      const b = w.clone('b');
      const onB = await w.on(b, [
        'resume',
        CHANGE,
        '--from',
        'origin',
        '--claim-ttl',
        '3s',
        '--on-complete',
        'keep',
      ]);
      expect(onB.exitCode, onB.stderr).toBe(0);
    } finally {
      live.signal('SIGCONT');
    }
    const finishedTip = remoteTip(w);
    const exit = await live.exited;
    expect(exit.code, live.stderr).toBe(1);
    expect(live.stderr).toMatch(/taken over by \S+, which finished the run \(keep\)/);
    expect(live.stderr).not.toContain('nobody');
    expect(remoteTip(w)).toBe(finishedTip);

    const way = advice({ stderr: live.stderr } as CliRun);
    expect(way).toEqual(['finish', CHANGE, '--from', 'origin', '--keep']);
    const ended = await w.on(w.a, way);
    expect(ended.exitCode, ended.stderr).toBe(0);
    expect(w.a.git('rev-parse', `ralph/${CHANGE}`).trim()).toBe(finishedTip);
    expect(remoteTip(w)).toBe(finishedTip);
  });
});

describe('a branch someone else moved on the remote', { timeout: 240_000 }, () => {
  /** A teammate's commit on origin's ralph/<change>, pushed from a clone of their own. */
  function teammatePushes(w: RemoteWorld): string {
    const t = w.clone('teammate');
    t.git('fetch', '-q', 'origin', `ralph/${CHANGE}`);
    t.git('switch', '-q', '-c', 'mine', 'FETCH_HEAD');
    writeFileSync(path.join(t.dir, 'theirs.txt'), 'theirs\n');
    t.git('add', 'theirs.txt');
    t.git('commit', '-q', '-m', 'a teammate’s commit');
    t.git('push', '-q', 'origin', `mine:ralph/${CHANGE}`);
    return t.git('rev-parse', 'HEAD').trim();
  }

  it('at resume: refused, their commit saved and named; the printed way back works', async () => {
    const w = await parkedOnA(2);
    const a = w.a;
    const theirs = teammatePushes(w);

    const resumed = await w.on(a, ['resume', CHANGE, '--answer', 'blue']);
    expect(resumed.exitCode, resumed.stderr).toBe(1);
    expect(resumed.stderr).toContain('someone else pushed to it');
    expect(remoteTip(w)).toBe(theirs);
    const saved = /saved here as (refs\/ralphtool\/truth\/forced\/\d+\/remote-branch)/.exec(
      resumed.stderr,
    )?.[1];
    expect(saved, resumed.stderr).toBeDefined();
    expect(a.git('rev-parse', saved ?? '').trim()).toBe(theirs);

    // The printed commands, in order: what they pushed, the push that puts the branch back, resume.
    const [log, push] = printedCommands(resumed.stderr, 'git');
    expect(a.git(...(log ?? []))).toContain('a teammate’s commit');
    a.git(...(push ?? []));
    const way = printedCommands(resumed.stderr, 'ralphtool').at(-1) ?? [];
    expect(way).toEqual(['resume', CHANGE]);
    const goes = await w.on(a, [...way, '--answer', 'blue']);
    expect(goes.exitCode, goes.stderr).toBe(0);
    expect(remoteState(w, CHANGE)).toMatchObject({ status: 'finished' });
    // Their commit is still here, under the name the refusal gave.
    expect(a.git('show', `${saved ?? ''}:theirs.txt`)).toBe('theirs\n');
  });

  it('while the run goes: the push is refused, the run stops (exit 1) and pushes nothing more', async () => {
    world = new RemoteWorld(CHANGE, stories(3));
    const go = path.join(world.scratch, 'go');
    const never = path.join(world.scratch, 'never');
    const w = world.scenario({
      '1-1': succeed('src/one.txt', 'one\n'),
      '2-1': [{ say: 'waiting' }, { waitFor: go }, ...succeed('src/two.txt', 'two\n')],
      // Story 3 waits until the run is stopped: the refused push stops it there.
      '3-1': [{ waitFor: never }],
    });
    const live = new LiveCli(
      ['run', CHANGE, ...fakeAgentFlags(), '--push', 'origin', '--json', '--on-complete', 'keep'],
      w.dir,
      w.env(),
    );
    await live.waitFor((e) => e.type === 'agent.message' && e.text === 'waiting');
    await live.waitUntil(() => remoteState(w, CHANGE)?.currentStory === '2');
    const theirs = teammatePushes(w);
    writeFileSync(go, '');
    const exit = await live.exited;
    expect(exit.code, live.stderr).toBe(1);
    expect(live.stderr).toContain('this machine stopped the run and pushes nothing more');
    expect(live.stderr).not.toMatch(/\n\s+at /);
    expect(remoteTip(w)).toBe(theirs);
    // The run is recorded here, resumable, and the claim is given back.
    expect(w.remoteRefs().has(`refs/ralphtool/${CHANGE}/claim`)).toBe(false);
    expect(w.state().status).toBe('active');
  });
});

describe('a new run where the remote has one', { timeout: 240_000 }, () => {
  it('refuses to start over an unfinished run there; --force starts over, saving its branch here', async () => {
    const w = await parkedOnA(2);
    const before = remoteTip(w);
    const c = w.clone('c');
    const cBefore = snapshot(c);
    const refused = await w.on(c, ['run', CHANGE, '--push', 'origin']);
    expect(refused.exitCode, refused.stderr).toBe(2);
    expect(refused.stderr).toContain(`\`ralphtool resume ${CHANGE} --from origin\``);
    expect(snapshot(c)).toBe(cBefore);
    expect(remoteTip(w)).toBe(before);

    const forced = await w.on(c, [
      'run',
      CHANGE,
      '--push',
      'origin',
      '--force',
      '--on-complete',
      'keep',
    ]);
    // Its story 2 is the scenario's second run of 2-1: it succeeds, and the run completes on c.
    expect(forced.exitCode, forced.stderr).toBe(0);
    const saved = /saved here as (refs\/ralphtool\/truth\/forced\/\d+\/remote-branch)/.exec(
      forced.stderr,
    )?.[1];
    expect(saved, forced.stderr).toBeDefined();
    expect(c.git('rev-parse', saved ?? '').trim()).toBe(before);
    expect(remoteTip(w)).toBe(c.git('rev-parse', `ralph/${CHANGE}`).trim());
  });
});

describe(
  'resume --from on a clone with commits of its own on the branch',
  { timeout: 240_000 },
  () => {
    it('never drops them: saved under a named ref, and said', async () => {
      const w = await parkedOnA(2);
      const b = w.clone('b');
      b.git('switch', '-q', '-c', `ralph/${CHANGE}`);
      writeFileSync(path.join(b.dir, 'local.txt'), 'local\n');
      b.git('add', 'local.txt');
      b.git('commit', '-q', '-m', 'a local commit');
      const local = b.git('rev-parse', 'HEAD').trim();
      b.git('switch', '-q', 'main');

      const resumed = await w.on(b, [
        'resume',
        CHANGE,
        '--from',
        'origin',
        '--answer',
        'blue',
        '--on-complete',
        'keep',
      ]);
      expect(resumed.exitCode, resumed.stderr).toBe(0);
      const saved = /saved under (refs\/ralphtool\/truth\/forced\/\d+\/)/.exec(resumed.stderr)?.[1];
      expect(saved, resumed.stderr).toBeDefined();
      expect(sh(b.dir, 'rev-parse', `${saved ?? ''}branch`).trim()).toBe(local);
      expect(b.git('show', `${saved ?? ''}branch:local.txt`)).toBe('local\n');
    });
  },
);
