import { existsSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Step } from '../../support/fake-agent.js';
import type { EventJson } from '../../support/live-cli.js';
import { killGroup } from '../../support/processes.js';
import { runCli } from '../../support/cli.js';
import { printedCommands } from '../../support/printed-command.js';
import { succeed } from '../../run/helpers.js';
import { ManyFixture } from './many-fixture.js';

// Several runs in one process, stopped (Ctrl-C, kill -9) and resumed, and the usage-limit
// pause they share (docs/contract.md, "Several changes at once").

let fixture: ManyFixture | undefined;
const strayGroups: number[] = [];
afterEach(() => {
  // Agents a kill -9 left hanging (a resume stops them; this is for a test that failed first).
  for (const pgid of strayGroups.splice(0)) killGroup(pgid);
  fixture?.remove();
  fixture = undefined;
});

const CHANGES = ['alpha', 'beta', 'gamma'];

/**
 * Story 1 done; story 2's first start says so and hangs (until stopped); its next start succeeds.
 * Changes in `straight` do not hang.
 */
function hangingInStory2(straight: readonly string[] = []): ManyFixture {
  const scenario = (c: string): Record<string, Step[]> => ({
    '1-1': succeed(`src/${c}1.txt`, `${c} 1\n`),
    '2-1#1': [
      { write: `src/${c}-partial.txt`, content: 'half\n' },
      { say: 'writing story 2' },
      { hang: true },
    ],
    '2-1': succeed(`src/${c}2.txt`, `${c} 2\n`),
    '2-2': succeed(`src/${c}2.txt`, `${c} 2\n`),
  });
  const plain = (c: string): Record<string, Step[]> => ({
    '1-1': succeed(`src/${c}1.txt`, `${c} 1\n`),
    '2-1': succeed(`src/${c}2.txt`, `${c} 2\n`),
  });
  return new ManyFixture({ alpha: 2, beta: 2, gamma: 2 }).scenarios(
    Object.fromEntries(CHANGES.map((c) => [c, straight.includes(c) ? plain(c) : scenario(c)])),
  );
}

async function allInStory2(live: {
  waitFor: (m: (e: EventJson) => boolean) => Promise<EventJson>;
}) {
  for (const change of CHANGES) {
    await live.waitFor(
      (e) => e.type === 'agent.message' && e.text === 'writing story 2' && e.change === change,
    );
  }
}

function expectAllFinished(f: ManyFixture): void {
  for (const change of CHANGES) {
    expect(f.subjects(`main..ralph/${change}`)).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
    expect(f.git('show', `ralph/${change}:src/${change}2.txt`)).toBe(`${change} 2\n`);
    expect(f.git('ls-tree', '-r', '--name-only', `ralph/${change}`)).not.toContain('partial');
  }
}

describe('several runs stopped and resumed', () => {
  it('Ctrl-C stops every run at its checkpoint (exit 130); resume --all carries them all on', async () => {
    fixture = hangingInStory2();
    const f = fixture;
    const live = f.spawn('run', [...CHANGES, '--parallel', '3']);
    await allInStory2(live);
    live.signal('SIGINT');
    expect((await live.exited).code).toBe(130);
    const finished = live.events.filter((e) => e.type === 'run.finished');
    expect(finished.map((e) => [e.change, e.outcome]).sort()).toEqual(
      CHANGES.map((c) => [c, 'stopped']),
    );
    for (const change of CHANGES) {
      expect(f.runState(change)).toMatchObject({
        status: 'active',
        outcome: 'stopped',
        choice: 'keep',
      });
      expect(f.subjects(`main..ralph/${change}`)).toEqual(['initial state', 'checkpoint: 1']);
      // The partial work is saved under the attempt ref, and the run kept incomplete gives its
      // worktree back (resume makes it again from the branch).
      expect(
        f.git('ls-tree', '-r', '--name-only', `refs/ralphtool/${change}/attempts/2-1`),
      ).toContain(`src/${change}-partial.txt`);
      expect(existsSync(f.worktree(change))).toBe(false);
    }
    expect(f.status()).toEqual([]);

    const resumed = await f.cli('resume', ['--all', '--on-complete', 'keep']);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expectAllFinished(f);
  }, 240_000);

  it('kill -9 of ralphtool: status lists every run, resume --all finishes them all', async () => {
    fixture = hangingInStory2();
    const f = fixture;
    const live = f.spawn('run', [...CHANGES, '--parallel', '3']);
    await allInStory2(live);
    for (const change of CHANGES) {
      const pgid = f.runState(change).agentPgid;
      if (typeof pgid === 'number') strayGroups.push(pgid);
    }
    await live.kill9();

    const status = await f.statusJson();
    expect(status.runs.map((r) => [r.change, r.state])).toEqual(
      CHANGES.map((c) => [c, 'interrupted']),
    );
    const resumed = await f.cli('resume', ['--all', '--on-complete', 'keep']);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stdout).toMatch(/alpha: complete · stories 2\/2/);
    expectAllFinished(f);
    expect(f.status()).toEqual([]);
  }, 240_000);
});

describe('runs a crashed command was asked for and never started', () => {
  it('kill -9 with one of three not begun: resume --all names it and starts it with the options it was asked for', async () => {
    fixture = hangingInStory2(['gamma']);
    const f = fixture;
    // Two at a time: gamma waits for a slot that never frees.
    const live = f.spawn('run', [...CHANGES, '--parallel', '2', '--max-retries', '4']);
    for (const change of ['alpha', 'beta']) {
      await live.waitFor(
        (e) => e.type === 'agent.message' && e.text === 'writing story 2' && e.change === change,
      );
      const pgid = f.runState(change).agentPgid;
      if (typeof pgid === 'number') strayGroups.push(pgid);
    }
    await live.kill9();
    expect(existsSync(path.join(f.dir, '.git/ralphtool/gamma/state.json'))).toBe(false);

    // status lists it, and its next: line is what starts it (run as printed).
    const listed = (await f.statusJson()) as unknown as Record<string, unknown>;
    expect(listed).toMatchObject({
      notStarted: { changes: ['gamma'], next: 'ralphtool resume --all' },
    });
    const text = await runCli(['status'], { cwd: f.dir, env: f.env() });
    expect(text.stdout).toContain('gamma  never started');
    const tail = text.stdout.slice(text.stdout.indexOf('gamma  never'));
    const [printed] = printedCommands(tail, 'ralphtool');
    expect(printed).toEqual(['resume', '--all']);
    const resumed = await f.cli('resume', (printed ?? []).slice(1));
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(resumed.stderr).toMatch(
      /--all starts gamma: asked for by the run of \S+ and never started/,
    );
    expectAllFinished(f);
    // Gamma got the flags it was asked for (--max-retries 4), not the defaults.
    expect(f.runState('gamma')).toMatchObject({ intent: { maxRetries: 4 } });
    // Nothing is left to start: the record of the batch is gone.
    expect(existsSync(path.join(f.dir, '.git/ralphtool/batch.json'))).toBe(false);
    const again = await f.cli('resume', ['--all']);
    expect(again.exitCode).toBe(2);
    expect(again.stderr).toContain('no run is left to resume');
  }, 240_000);

  it('a command that ends normally leaves no record behind', async () => {
    fixture = new ManyFixture({ alpha: 1, beta: 1 }).scenarios({
      alpha: { '1-1': succeed('src/a.txt', 'a\n') },
      beta: { '1-1': succeed('src/b.txt', 'b\n') },
    });
    const f = fixture;
    const ran = await f.cli('run', ['alpha', 'beta', '--on-complete', 'keep']);
    expect(ran.exitCode, ran.stderr).toBe(0);
    expect(existsSync(path.join(f.dir, '.git/ralphtool/batch.json'))).toBe(false);
  }, 240_000);
});

describe('the usage-limit pause several runs share', () => {
  it('while one run waits out a limit, the others of the same agent start no new attempt', async () => {
    fixture = new ManyFixture({ alpha: 2, beta: 2 });
    const f = fixture;
    const gate = path.join(f.scratch, 'beta-may-finish-story-1');
    // Alpha meets its limit only once beta's first attempt runs (on a loaded machine beta's
    // worktree may be made after alpha's agent has already stopped).
    const betaAtWork = path.join(f.scratch, 'beta-is-at-work');
    f.scenarios({
      alpha: {
        '1-1#1': [
          { waitFor: betaAtWork },
          { write: 'src/partial.txt', content: 'half\n' },
          { resetsIn: 5_000 },
          { stderr: 'usage limit reached' },
          { exit: 75 },
        ],
        '1-1': succeed('src/alpha1.txt', 'a1\n'),
        '2-1': succeed('src/alpha2.txt', 'a2\n'),
      },
      beta: {
        // Beta's running attempt goes on during alpha's wait; its next one waits.
        '1-1': [{ say: 'beta at work' }, { waitFor: gate }, ...succeed('src/beta1.txt', 'b1\n')],
        '2-1': succeed('src/beta2.txt', 'b2\n'),
      },
    });
    const live = f.spawn('run', ['alpha', 'beta', '--parallel', '2', '--on-complete', 'keep']);
    await live.waitFor(
      (e) => e.type === 'agent.message' && e.text === 'beta at work' && e.change === 'beta',
    );
    writeFileSync(betaAtWork, '');
    await live.waitFor((e) => e.type === 'agent.limited' && e.change === 'alpha');
    writeFileSync(gate, '');
    const shared = await live.waitFor((e) => e.type === 'agent.limited' && e.change === 'beta');
    expect(String(shared.message)).toContain('alpha');
    expect(shared).toMatchObject({ storyId: '2', kind: 'usage' });
    // `status` shows beta waiting too.
    const status = await f.statusJson();
    const beta = status.runs.find((r) => r.change === 'beta');
    expect(beta?.wait).toMatchObject({ storyId: '2' });

    expect((await live.exited).code, live.stderr).toBe(0);
    const seen = live.events.map(
      (e) => `${e.type}:${typeof e.change === 'string' ? e.change : ''}:${String(e.storyId)}`,
    );
    const alphaResumed = seen.indexOf('limit.resumed:alpha:1');
    expect(alphaResumed).toBeGreaterThan(-1);
    expect(seen.indexOf('story.completed:beta:1')).toBeLessThan(alphaResumed);
    expect(seen.indexOf('story.started:beta:2')).toBeGreaterThan(alphaResumed);
    expect(f.subjects('main..ralph/beta')).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
    expect(f.subjects('main..ralph/alpha')).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
  }, 240_000);
});
