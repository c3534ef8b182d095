import { afterEach, describe, expect, it } from 'vitest';
import type { LiveCli } from '../../support/live-cli.js';
import type { Step } from '../../support/fake-agent.js';
import { WorkerWorld } from './worker-world.js';

// `worker --watch`: once nothing is left it looks again every interval, takes up a change pushed
// to the default branch meanwhile, and ends on Ctrl-C; a worker without --watch that finds
// nothing ends at once, saying so.

const DONE: Step[] = [{ tick: 'all' }, { say: 'done' }, { signal: 'COMPLETE' }];
let world: WorkerWorld | undefined;
const lives: LiveCli[] = [];
afterEach(async () => {
  for (const live of lives.splice(0)) await live.kill9().catch(() => undefined);
  world?.remove();
  world = undefined;
});

describe('worker --watch', { timeout: 240_000 }, () => {
  it('takes up a change pushed later, then ends on Ctrl-C without a trace of a run', async () => {
    const w = (world = new WorkerWorld({ 'add-a': 1 }));
    w.scenarios({ 'add-a': { '*': DONE }, 'add-b': { '*': DONE } });
    const watcher = w.worker(w.clone('one'), ['--watch', '200ms']);
    lives.push(watcher);
    await watcher.waitFor((e) => e.type === 'worker.ran' && e.change === 'add-a');
    await watcher.waitFor((e) => e.type === 'worker.idle');

    // Someone pushes a new change to main.
    w.repo.write(
      'openspec/changes/add-b/proposal.md',
      '# add-b\n\nWhy: pushed while the worker watches.\n',
    );
    w.repo.write('openspec/changes/add-b/tasks.md', '## 1. Story 1\n\n- [ ] 1.1 do the thing\n');
    w.git('add', '-A');
    w.git('commit', '-q', '-m', 'add-b');
    w.git('push', '-q', 'origin', 'main');

    const ran = await watcher.waitFor((e) => e.type === 'worker.ran' && e.change === 'add-b');
    expect(ran).toMatchObject({ action: 'run', exitCode: 0 });
    expect(w.remoteState('add-b')).toMatchObject({ status: 'finished', choice: 'keep' });
    // Idle again, then Ctrl-C.
    await watcher.waitUntil(
      () => watcher.events.filter((e) => e.type === 'worker.idle').length === 2,
    );
    watcher.signal('SIGINT');
    const end = await watcher.exited;
    expect(end.code, watcher.stderr).toBe(130);
    const ended = watcher.events.find((e) => e.type === 'worker.ended');
    expect(ended).toMatchObject({
      exitCode: 130,
      taken: [
        { change: 'add-a', exitCode: 0 },
        { change: 'add-b', exitCode: 0 },
      ],
    });
    expect(watcher.stderr).not.toMatch(/internal error/);
    expect(w.remote('for-each-ref', 'refs/ralphtool/*/claim').trim()).toBe('');
    expect(w.starts()).toEqual(
      new Map([
        ['add-a.1-1', 1],
        ['add-b.1-1', 1],
      ]),
    );
  });

  it('without --watch, a worker with nothing to do exits 0 and says so', async () => {
    const w = (world = new WorkerWorld({ 'add-a': 1 }));
    w.scenarios({ 'add-a': { '*': DONE } });
    const first = w.worker(w.clone('one'));
    lives.push(first);
    expect((await first.exited).code, first.stderr).toBe(0);
    // A second machine finds the change finished on the remote: nothing to do, exit 0.
    const idle = await w.on(w.clone('two'), ['worker', '--from', 'origin']);
    expect(idle.exitCode, idle.stderr).toBe(0);
    expect(idle.stdout).toContain('nothing to do: no change has work left on origin');
    expect(idle.stdout).toContain(
      'left: add-a: its run finished on origin; its branch waits for a person',
    );
    expect(w.starts()).toEqual(new Map([['add-a.1-1', 1]]));
  });
});
