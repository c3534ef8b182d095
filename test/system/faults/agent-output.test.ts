import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FaultWorld } from './support/world.js';

// Row 11: agent output that is invalid UTF-8, holds NUL bytes and terminal escapes, is one
// 200 MB line without a newline, or a million tiny lines. ralphtool's memory stays bounded
// (peak RSS from /proc, loosely bounded: the machine is shared) and the run continues.

const CHANGE = 'agent-output';
const NOISY_AGENT = path.resolve('test/system/faults/support/noisy-agent.mjs');
/** Far above a healthy run (~100 MB) and far below holding 200 MB of output twice. */
const PEAK_RSS_LIMIT_KB = 350 * 1024;

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

describe('hostile agent output', () => {
  it(
    'every story completes, stdout stays valid NDJSON and memory stays bounded',
    { timeout: 600_000 },
    async () => {
      world = new FaultWorld(CHANGE, 3).scenario({});
      const w = world;
      const live = w.spawn('run', ['--idle-timeout', '0', '--command-timeout', '120'], {
        agent: NOISY_AGENT,
        keepMessages: false,
      });
      live.sampleMemory(50);
      const exit = await live.exited;
      const failures = live.events.filter((e) => e.type === 'attempt.failed');
      expect(exit.code, `${live.stderr}\n${JSON.stringify(failures).slice(0, 3000)}`).toBe(0);
      expect(live.junkBytes).toBe(0);
      // Every agent line is either an event or counted in a "not shown" notice (backpressure).
      expect(live.messageCount + live.omittedCount).toBeGreaterThanOrEqual(1_000_000);
      expect(live.peakRssKb).toBeGreaterThan(0);
      expect(live.peakRssKb).toBeLessThan(PEAK_RSS_LIMIT_KB);

      const completed = live.events.filter((e) => e.type === 'story.completed');
      expect(completed.map((e) => e.storyId)).toEqual(['1', '2', '3']);
      expect(live.events.filter((e) => e.type === 'attempt.failed')).toEqual([]);
      expect(w.subjects(`main..${w.branch}`)).toEqual([
        'initial state',
        'checkpoint: 1',
        'checkpoint: 2',
        'checkpoint: 3',
      ]);
      expect(w.status()).toEqual([]);
      expect(w.userFilesChanged()).toEqual([]);
      expect(w.state()).toMatchObject({ status: 'finished', outcome: 'complete' });
    },
  );

  it(
    'a COMPLETE followed by a 200 MB line that never ends still counts (the last signal of stdout)',
    { timeout: 300_000 },
    async () => {
      world = new FaultWorld(CHANGE, 1).scenario({});
      const w = world;
      w.agentEnv = { NOISY_MODE: 'signal-then-flood' };
      const live = w.spawn('run', ['--idle-timeout', '0', '--max-retries', '0'], {
        agent: NOISY_AGENT,
        keepMessages: false,
      });
      live.sampleMemory(50);
      const exit = await live.exited;
      const failures = live.events.filter((e) => e.type === 'attempt.failed');
      expect(exit.code, JSON.stringify(failures)).toBe(0);
      expect(live.peakRssKb).toBeLessThan(PEAK_RSS_LIMIT_KB);
      expect(w.subjects(`main..${w.branch}`)).toEqual(['initial state', 'checkpoint: 1']);
      expect(w.userFilesChanged()).toEqual([]);
    },
  );
});
