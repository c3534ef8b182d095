import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { stories } from '../../run/helpers.js';
import { RemoteWorld } from './world.js';

// The heartbeat moves the claim while the run goes; every push of the run leases the claim it
// holds. A run's push that read the claim before a heartbeat moved it, and reaches the remote
// after, is refused on its own machine's claim. A `git` that takes 1.5 s to start a push and a
// heartbeat every second make that window wide: without one push at a time, most pushes fail.

const CHANGE = 'slow-remote';
let world: RemoteWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

describe('a slow remote and a frequent heartbeat', { timeout: 240_000 }, () => {
  it("never refuse the machine's own pushes: none fails, the branch and record arrive", async () => {
    world = new RemoteWorld(CHANGE, stories(3));
    const w = world;
    const realGit = execFileSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).trim();
    const bin = path.join(w.scratch, 'slow-push-bin');
    mkdirSync(bin);
    writeFileSync(
      path.join(bin, 'git'),
      `#!/bin/sh\nfor a in "$@"; do [ "$a" = push ] && sleep 1.5 && break; done\nexec ${realGit} "$@"\n`,
    );
    chmodSync(path.join(bin, 'git'), 0o755);
    w.scenario({
      '*': [
        { write: 'src/story.txt', content: 'x\n' },
        { tick: 'all' },
        // Long enough for heartbeats to come in the middle of the run's pushes.
        { sleep: 2_500 },
        { signal: 'COMPLETE' },
      ],
    });
    // --claim-ttl 3s: a heartbeat every second.
    const result = await w.run(
      ['--push', 'origin', '--claim-ttl', '3s', '--on-complete', 'keep', '--json'],
      { env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` } },
    );
    expect(result.exitCode, result.stderr).toBe(0);
    const events = result.stdout
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as { type: string; message?: string });
    expect(events.filter((e) => e.type === 'remote.push-failed')).toEqual([]);
    expect(events.filter((e) => e.type === 'remote.pushed').length).toBeGreaterThan(3);
    expect(w.remoteRefs().get(`refs/heads/ralph/${CHANGE}`)).toBe(
      w.git('rev-parse', `ralph/${CHANGE}`).trim(),
    );
  });
});
