import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { CLI_PATH } from '../../support/cli.js';
import {
  ALL_SUCCEED,
  agentFlags,
  FaultWorld,
  succeed,
  type Step,
} from '../faults/support/world.js';

// `ralphtool run X | head -1`: the reader of stdout goes away mid-run. The run stops as if
// Ctrl-C had been pressed (exit non-zero), the finished story stays committed, the attempt
// in progress is saved and reverted (nothing loose in the tree), and `resume` carries on.

const CHANGE = 'head-closes';

let world: FaultWorld | undefined;
afterEach(() => {
  world?.remove();
  world = undefined;
});

/** An attempt that writes a file, then prints lines without end (until it is killed). */
function flooding(): Step[] {
  return [
    { write: 'src/partial.txt', content: 'half-way\n' },
    { flood: 200_000_000, lineBytes: 100 },
    { hang: true },
  ];
}

/** Story 1 is accepted; story 2's agent writes a file and prints without end. */
function floodingWorld(): FaultWorld {
  return new FaultWorld(CHANGE, 3).scenario({
    '1-1': succeed('src/one.txt', 'one\n'),
    '2-1': flooding(),
  });
}

/** An NDJSON line of the story's flood: its agent has written its file by then. */
function floodOf(storyId: string): (line: string) => boolean {
  return (line) =>
    line.includes('"type":"agent.message"') && line.includes(`"storyId":"${storyId}"`);
}

/**
 * Runs ralphtool with stdout a pipe that the test destroys (as `head` exits) once a line
 * matching `closeAfter` was read; resolves with the exit code and stderr.
 */
function runUntilClosed(
  w: FaultWorld,
  args: readonly string[],
  closeAfter: (line: string) => boolean,
): Promise<{ code: number | null; stderr: string; closed: boolean }> {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries({ ...process.env, NO_COLOR: '1', ...w.env() })) {
    if (value !== undefined) env[key] = value;
  }
  const child = spawn(process.execPath, [CLI_PATH, ...args], {
    cwd: w.dir,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  let pending = '';
  let closed = false;
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
    pending += chunk;
    const lines = pending.split('\n');
    pending = lines.pop() ?? '';
    if (!closed && lines.some(closeAfter)) {
      closed = true;
      child.stdout.destroy();
    }
  });
  return new Promise((resolve) => {
    child.on('close', (code) => resolve({ code, stderr, closed }));
  });
}

async function expectResumable(w: FaultWorld): Promise<void> {
  // The finished story is committed; the one in progress was saved and reverted.
  expect(w.subjects(`main..${w.branch}`)).toEqual(['initial state', 'checkpoint: 1']);
  expect(w.currentBranch()).toBe(w.branch);
  expect(w.status()).toEqual([]);
  expect(w.exists('src/partial.txt')).toBe(false);
  expect(w.git('show', `refs/ralphtool/${CHANGE}/attempts/2-1:src/partial.txt`)).toBe('half-way\n');
  expect(w.state()).toMatchObject({ status: 'active', pid: null, agentPgid: null });

  const status = await w.statusJson();
  expect(String(status.runs[0]?.next)).toContain(`ralphtool resume ${CHANGE}`);

  w.scenario(ALL_SUCCEED);
  const resumed = await w.loop('resume');
  expect(resumed.exitCode, resumed.stderr).toBe(0);
  expect(w.subjects(`main..${w.branch}`)).toEqual([
    'initial state',
    'checkpoint: 1',
    'checkpoint: 2',
    'checkpoint: 3',
  ]);
  expect(w.userFilesChanged()).toEqual([]);
}

describe('stdout closed early (ralphtool run X | head)', () => {
  it('--json: exits non-zero, the run stays resumable with story 1 committed', async () => {
    world = floodingWorld();
    const w = world;
    const end = await runUntilClosed(w, ['run', CHANGE, ...agentFlags(), '--json'], floodOf('2'));
    expect(end.closed).toBe(true);
    expect(end.code).not.toBe(0);
    expect(end.code).toBe(130);
    expect(end.stderr).toContain('stdout was closed');
    expect(end.stderr).not.toMatch(/\n\s+at /);
    await expectResumable(w);
  });

  it('head -1: closed after the first line, nothing is left loose and the run resumes', async () => {
    world = floodingWorld();
    const w = world;
    const end = await runUntilClosed(w, ['run', CHANGE, ...agentFlags(), '--json'], () => true);
    expect(end.code).toBe(130);
    expect(w.currentBranch()).toBe(w.branch);
    expect(w.status()).toEqual([]);
    expect(w.state()).toMatchObject({ status: 'active', choice: 'keep', outcome: 'stopped' });
    w.scenario(ALL_SUCCEED);
    const resumed = await w.loop('resume');
    expect(resumed.exitCode, resumed.stderr).toBe(0);
    expect(w.state()).toMatchObject({ status: 'finished', outcome: 'complete' });
  });

  it('plain progress: the same, closed at a line of story 2’s agent', async () => {
    world = floodingWorld();
    const w = world;
    // Plain progress shows agent lines too: closed at the first of story 2's flood.
    const end = await runUntilClosed(w, ['run', CHANGE, ...agentFlags()], (line) =>
      line.includes('x'.repeat(40)),
    );
    expect(end.closed).toBe(true);
    expect(end.code).toBe(130);
    await expectResumable(w);
  });

  it('resume with stdout closed early stops the same way and stays resumable', async () => {
    world = new FaultWorld(CHANGE, 3).scenario({ '1-1': flooding() });
    const w = world;
    // A first run stopped at story 1 the same way (kept incomplete), to resume.
    const first = await runUntilClosed(w, ['run', CHANGE, ...agentFlags(), '--json'], floodOf('1'));
    expect(first.code).toBe(130);
    expect(w.state()).toMatchObject({ status: 'active', choice: 'keep' });
    w.scenario({ '1-*': succeed('src/one.txt', 'one\n'), '2-*': flooding() });
    const end = await runUntilClosed(
      w,
      ['resume', CHANGE, ...agentFlags(), '--json'],
      floodOf('2'),
    );
    expect(end.code).toBe(130);
    await expectResumable(w);
  });
});
