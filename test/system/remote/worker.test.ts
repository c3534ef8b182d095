import { afterEach, describe, expect, it } from 'vitest';
import type { LiveCli } from '../../support/live-cli.js';
import { fakeAgentFlags, type Step } from '../../support/fake-agent.js';
import { printedCommands } from '../../support/printed-command.js';
import { WorkerWorld } from './worker-world.js';

// Pull-mode workers (docs/contract.md, "Pull-mode workers"): `ralphtool worker --from origin`
// on clones of one bare remote, every machine on this host, the agent the executable fake one.

const DONE: Step[] = [{ tick: 'all' }, { say: 'done' }, { signal: 'COMPLETE' }];
let world: WorkerWorld | undefined;
const lives: LiveCli[] = [];
afterEach(async () => {
  for (const live of lives.splice(0)) await live.kill9().catch(() => undefined);
  world?.remove();
  world = undefined;
});

function live(l: LiveCli): LiveCli {
  lives.push(l);
  return l;
}

describe('worker --from', () => {
  it('two workers on two clones finish four changes, each story exactly once', async () => {
    const changes = { 'add-a': 2, 'add-b': 2, 'add-c': 2, 'add-d': 2 };
    const w = (world = new WorkerWorld(changes));
    w.scenarios(Object.fromEntries(Object.keys(changes).map((c) => [c, { '*': DONE }])));
    // --list says what a worker would do, and does nothing.
    const lister = w.clone('lister');
    lister.git('switch', '-q', '-c', 'elsewhere');
    const listed = await w.on(lister, ['worker', '--from', 'origin', '--list', '--json']);
    expect(listed.exitCode, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject({
      remote: 'origin',
      changes: Object.keys(changes).map((change) => ({ change, action: 'run' })),
    });
    expect(lister.git('branch', '--show-current').trim()).toBe('elsewhere');
    expect(w.remote('for-each-ref', 'refs/ralphtool/').trim()).toBe('');

    const one = live(w.worker(w.clone('one')));
    const two = live(w.worker(w.clone('two')));
    const [a, b] = await Promise.all([one.exited, two.exited]);
    expect({ a: a.code, b: b.code }, `${one.stderr}\n${two.stderr}`).toEqual({ a: 0, b: 0 });
    // Every story of every change started exactly once, on one machine or the other.
    const expected = new Map(
      Object.keys(changes).flatMap((c) => ['1', '2'].map((s) => [`${c}.${s}-1`, 1] as const)),
    );
    expect(w.starts()).toEqual(expected);
    for (const change of Object.keys(changes)) {
      expect(w.remoteState(change)).toMatchObject({ status: 'finished', choice: 'keep' });
      expect(w.remote('rev-parse', '--verify', `refs/heads/ralph/${change}`)).toMatch(
        /^[0-9a-f]{40}/,
      );
    }
    // Each change finished by exactly one worker, as its summary event says.
    const finishedBy = (l: LiveCli): string[] =>
      (
        l.events.find((e) => e.type === 'worker.ended')?.taken as {
          change: string;
          exitCode: number;
        }[]
      )
        .filter((t) => t.exitCode === 0)
        .map((t) => t.change);
    expect([...finishedBy(one), ...finishedBy(two)].sort()).toEqual(Object.keys(changes));
    // No claim is left behind.
    expect(w.remote('for-each-ref', 'refs/ralphtool/*/claim').trim()).toBe('');
  }, 240_000);
});

describe('a change a person must look at', () => {
  it('a story that used up its attempts is left by the next worker, whose advice works as printed', async () => {
    const w = (world = new WorkerWorld({ 'add-a': 1, 'add-b': 1 }));
    const fails: Step[] = [{ say: 'no way' }, { signal: 'FAILED: cannot do it' }];
    w.scenarios({ 'add-a': { '*': fails }, 'add-b': { '*': DONE } });
    const first = live(w.worker(w.clone('one'), ['--max-retries', '0']));
    const end = await first.exited;
    // add-a used up its attempts (exit 3), add-b finished: the worker went on after add-a.
    expect(end.code, first.stderr).toBe(3);
    expect(first.events.find((e) => e.type === 'worker.ended')).toMatchObject({
      taken: [
        { change: 'add-a', exitCode: 3 },
        { change: 'add-b', exitCode: 0 },
      ],
    });
    const two = w.clone('two');
    const next = await w.on(two, ['worker', '--from', 'origin']);
    expect(next.exitCode, next.stderr).toBe(0);
    const left = /left: add-a: (.*)/.exec(next.stdout)?.[1] ?? '';
    expect(left).toMatch(/^a story used up its attempts: a person decides/);
    // The advice, run as printed (with the fake agent, now able to do it).
    const [advice] = printedCommands(left, 'ralphtool');
    expect(advice).toEqual(['resume', 'add-a', '--from', 'origin']);
    w.scenarios({ 'add-a': { '*': DONE }, 'add-b': { '*': DONE } });
    const resumed = await w.on(two, [...(advice ?? []), ...fakeAgentFlags(), '--max-retries', '1']);
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(w.remoteState('add-a')).toMatchObject({ status: 'finished' });
  }, 240_000);
});

describe('worker --max-duration', () => {
  it("is the worker's: each run gets the time left, none starts once it is out (exit 5)", async () => {
    const w = (world = new WorkerWorld({ 'add-a': 2, 'add-b': 1 }));
    const slow: Step[] = [{ sleep: 1500 }, ...DONE];
    w.scenarios({ 'add-a': { '*': slow }, 'add-b': { '*': DONE } });
    const timed = live(w.worker(w.clone('one'), ['--max-duration', '1s']));
    const end = await timed.exited;
    expect(end.code, timed.stderr).toBe(5);
    // add-a stopped at the boundary after its first story, add-b never began.
    expect(w.remoteState('add-a')).toMatchObject({ status: 'active', outcome: 'time-limit' });
    expect(timed.events.find((e) => e.type === 'worker.time-up')).toMatchObject({
      change: 'add-b',
    });
    expect(timed.events.find((e) => e.type === 'worker.ended')).toMatchObject({
      exitCode: 5,
      timeUp: true,
      taken: [{ change: 'add-a', exitCode: 5 }],
    });
    expect(w.starts()).toEqual(new Map([['add-a.1-1', 1]]));
    // The next worker goes on with both.
    const next = live(w.worker(w.clone('two')));
    expect((await next.exited).code, next.stderr).toBe(0);
    expect(w.starts()).toEqual(
      new Map([
        ['add-a.1-1', 1],
        ['add-a.2-1', 1],
        ['add-b.1-1', 1],
      ]),
    );
  }, 240_000);
});
