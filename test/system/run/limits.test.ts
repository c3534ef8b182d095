import { statSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  eventually,
  processGone,
  procStat,
  RunFixture,
  single,
  stories,
} from '../../run/helpers.js';

const CHANGE = 'slow-agent';

let fixture: RunFixture | undefined;
const groups: number[] = [];
afterEach(() => {
  // Should the limit fail to kill the agent, do not leave it running: end its group by id.
  for (const pgid of groups.splice(0)) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      // gone, as it should be
    }
  }
  fixture?.remove();
  fixture = undefined;
});

/**
 * Records the hanging agent's process group (the group of the child it started) while the
 * run goes on, so that the test can check it is gone and clean it up if it is not.
 */
async function recordGroup(f: RunFixture): Promise<void> {
  expect(await eventually(() => childReady(f), 60_000)).toBe(true);
  const pgrp = procStat(f.childPid('1', 1))?.pgrp;
  if (pgrp !== undefined && pgrp > 1) groups.push(pgrp);
}

describe('ralphtool run: attempt limits', () => {
  it('--agent-timeout kills a hanging agent and its whole process group (kind timeout)', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario({
      '1-1': [
        { write: 'src/slow.txt', content: 'slow\n' },
        { say: 'thinking hard' },
        { hang: true, withChild: true },
      ],
    });
    const f = fixture;
    const running = f.run(['--json', '--max-retries', '0', '--agent-timeout', '2s']);
    await recordGroup(f);
    const result = await running;
    expect(result.exitCode).toBe(3);
    const failure = single(result.events(), 'attempt.failed');
    expect(failure).toMatchObject({ storyId: '1', attempt: 1, kind: 'timeout' });

    // The child was started in the agent's group; both must be gone once ralphtool is done.
    const child = f.childPid('1', 1);
    expect(await eventually(() => processGone(child))).toBe(true);
    for (const pgid of groups) expect(await eventually(() => processGone(pgid))).toBe(true);
    expect(f.exists('src/slow.txt')).toBe(false);
    expect(f.status()).toEqual([]);
  });

  it('--idle-timeout kills an agent that printed once and then went silent (kind idle-timeout)', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario({
      '1-1': [{ say: 'one line, then nothing' }, { hang: true, withChild: true }],
    });
    const f = fixture;
    const running = f.run(['--json', '--max-retries', '0', '--idle-timeout', '2s']);
    await recordGroup(f);
    const result = await running;
    expect(result.exitCode).toBe(3);
    const events = result.events();
    expect(single(events, 'attempt.failed')).toMatchObject({
      storyId: '1',
      attempt: 1,
      kind: 'idle-timeout',
    });
    expect(
      events.some((e) => e.type === 'agent.message' && e.text === 'one line, then nothing'),
    ).toBe(true);
    const child = f.childPid('1', 1);
    expect(await eventually(() => processGone(child))).toBe(true);
    for (const pgid of groups) expect(await eventually(() => processGone(pgid))).toBe(true);
  });

  it('accepts a story after the agent floods 100 MB of output', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario({
      '1-1': [
        { flood: 100 * 1024 * 1024, lineBytes: 1024 },
        { write: 'src/after-flood.txt', content: 'survived\n' },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    const f = fixture;
    // Plain output: each of the ~100,000 lines becomes one clipped progress line.
    const result = await f.run(['--max-retries', '0']);
    expect(result.exitCode).toBe(0);
    expect(f.subjects(`main..ralph/${CHANGE}`)).toEqual(['initial state', 'checkpoint: 1']);
    expect(f.read('src/after-flood.txt')).toBe('survived\n');
    // The flood really went through: the transcript keeps the raw output.
    const transcript = path.join(f.runDir, 'transcripts', '1-1.ndjson');
    expect(statSync(transcript).size).toBeGreaterThanOrEqual(100 * 1024 * 1024);
  }, 240_000);

  it('accepts a story after one 32 MB line, with --json', async () => {
    fixture = new RunFixture(CHANGE, stories(1)).scenario({
      '1-1': [
        { flood: 32 * 1024 * 1024, lineBytes: 32 * 1024 * 1024 },
        { tick: 'all' },
        { signal: 'COMPLETE' },
      ],
    });
    const result = await fixture.run(['--json', '--max-retries', '0']);
    expect(result.exitCode).toBe(0);
    expect(single(result.events(), 'story.completed')).toMatchObject({ storyId: '1', attempts: 1 });
  }, 240_000);
});

function childReady(f: RunFixture): boolean {
  try {
    return f.childPid('1', 1) > 0;
  } catch {
    return false;
  }
}
