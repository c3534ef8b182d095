import { chmodSync, copyFileSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stories } from '../../run/helpers.js';
import { RemoteWorld } from './world.js';

// Every push the remote receives is checked by a real pre-receive hook: the record it carries
// names the very checkpoint the run's branch is at after the push (an accept may move the local
// branch between the record's writing and the push; the branch is pushed at the record's
// checkpoint, not at the local tip).

const CHANGE = 'many-quick';
let world: RemoteWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

describe('the record and the branch on the remote', { timeout: 240_000 }, () => {
  it('agree at every push of a run of many quick stories', async () => {
    world = new RemoteWorld(CHANGE, stories(12));
    const w = world;
    const hook = path.join(w.origin, 'hooks', 'pre-receive');
    copyFileSync(path.resolve('test/system/remote/support/check-record-hook.mjs'), hook);
    chmodSync(hook, 0o755);
    const log = path.join(w.scratch, 'record-checks.log');
    const done = [
      { write: 'src/story.txt', content: 'x\n' },
      { tick: 'all' },
      { signal: 'COMPLETE' },
    ] as const;
    // Pushes go at most every 2 s (steps made meanwhile go together): four stories slower than
    // that make pushes in the middle of the run, while the quick ones between race the accepts.
    const slow = [{ sleep: 2_100 }, ...done];
    w.scenario({
      '*': [...done],
      '3-1': slow,
      '4-1': [{ write: 'src/bad.txt', content: 'bad\n' }, { signal: 'FAILED: once' }],
      '6-1': slow,
      '9-1': [{ write: 'src/bad.txt', content: 'bad\n' }, { signal: 'FAILED: once' }],
      '10-1': slow,
      '12-1': slow,
    });
    const result = await w.run(['--push', 'origin', '--on-complete', 'keep', '--json'], {
      env: { RECORD_CHECK_LOG: log },
    });
    expect(result.exitCode, result.stderr).toBe(0);
    const checks = readFileSync(log, 'utf8').trim().split('\n');
    expect(checks.filter((c) => !c.startsWith('ok '))).toEqual([]);
    const pushes = result.stdout.split('\n').filter((l) => l.includes('"remote.pushed"')).length;
    expect(checks.length).toBe(pushes);
    // The start, one during each slow story, the end.
    expect(checks.length).toBeGreaterThanOrEqual(6);
  });
});
