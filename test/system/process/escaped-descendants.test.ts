import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { DescendantWatch } from '../../../src/process/descendants.js';
import { processStartTime } from '../../../src/process/proc.js';
import { streamProcess, type StreamOptions } from '../../../src/process/stream.js';
import { FAKE_AGENT, stories, type Step } from '../../support/fake-agent.js';
import { ofType } from '../../support/run-events.js';
import { RunFixture, succeed } from '../../run/helpers.js';
import { eventually, processAlive, processGone } from '../../support/processes.js';

// An agent leaves processes behind the ways real ones do (a dev server started with setsid or
// nohup, a watcher double-forked out of its group, one that ignores SIGTERM, one that closed
// its output but writes files on): the attempt ends when the agent does, and when
// streamProcess returns, every one of them is dead (the tree is settled before it is judged).

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(tmpdir(), 'ralphtool-escaped-'));
});
afterEach(() => {
  // A failing test must not leave its daemons running: kill them by the pids they wrote.
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.pid'))) {
    const pid = Number(readFileSync(path.join(dir, file), 'utf8'));
    if (pid > 1 && processAlive(pid)) process.kill(pid, 'SIGKILL');
  }
  rmSync(dir, { recursive: true, force: true });
});

/** Runs the fake agent (a real process) on `steps`, as an agent backend does. */
async function runAgent(steps: Step[], options: Partial<StreamOptions> = {}) {
  const scenario = path.join(dir, 'scenario.json');
  writeFileSync(scenario, JSON.stringify({ '*': steps }));
  const lines: string[] = [];
  const result = await streamProcess(process.execPath, [FAKE_AGENT], {
    cwd: dir,
    env: { ...process.env, FAKE_AGENT_SCENARIO: scenario },
    input: 'the prompt',
    onLine: (line) => lines.push(line),
    watchDescendants: true,
    graceMs: 500,
    ...options,
  });
  return { result, lines };
}

function pidIn(name: string): number {
  const pid = Number(readFileSync(path.join(dir, name), 'utf8'));
  // The daemons write their pid files whole (temp file, then rename): never an empty read.
  expect(pid).toBeGreaterThan(1);
  return pid;
}

/** Gone at the moment of asking: no waiting, the run must have settled the tree already. */
function goneNow(pid: number): boolean {
  return processGone(pid);
}

describe('an agent that exits and leaves a process behind', () => {
  const variants: [string, Step][] = [
    ['a setsid daemon holding stdout', { daemon: 'setsid', holdOutput: true }],
    [
      'a setsid daemon holding stdout that ignores SIGTERM',
      { daemon: 'setsid', holdOutput: true, stubborn: true },
    ],
    ['a nohup’d child in the group holding stdout', { daemon: 'nohup', holdOutput: true }],
    ['a double-forked daemon holding stdout', { daemon: 'doubleFork', holdOutput: true }],
    [
      'a double-forked daemon that closed its output and writes files every 50 ms',
      { daemon: 'doubleFork', writes: 'late.txt' },
    ],
    [
      'a setsid daemon that closed its output, ignores SIGTERM and writes files',
      { daemon: 'setsid', writes: 'late.txt', stubborn: true },
    ],
    [
      'a plain background child in the group that ignores SIGTERM and holds stdout',
      { daemon: 'group', holdOutput: true, stubborn: true },
    ],
  ];

  it.each(variants)(
    '%s: the attempt ends, and the process is dead when it does',
    async (_, step) => {
      const { result, lines } = await runAgent([
        { say: 'starting the server' },
        { ...step, pidFile: 'daemon.pid' },
        { say: 'leaving it running' },
        { exit: 0 },
      ]);
      expect(result).toMatchObject({ exitCode: 0, timedOut: null, aborted: false });
      expect(lines).toEqual(['starting the server', 'leaving it running']);
      const daemon = pidIn('daemon.pid');
      expect(goneNow(daemon)).toBe(true);
      // One outside the group is named in the report (pid and command); the group is killed whole.
      const outside = step.daemon === 'setsid' || step.daemon === 'doubleFork';
      expect(result.strays.some((s) => s.pid === daemon)).toBe(outside);
    },
  );

  it('reports each process it killed outside the group by pid and command line', async () => {
    const { result } = await runAgent([
      { daemon: 'setsid', holdOutput: true, pidFile: 'a.pid' },
      { daemon: 'doubleFork', writes: 'late.txt', pidFile: 'b.pid' },
      { exit: 0 },
    ]);
    const strays = result.strays.filter((s) => [pidIn('a.pid'), pidIn('b.pid')].includes(s.pid));
    expect(strays).toHaveLength(2);
    for (const stray of strays) expect(stray.command).toMatch(/node/);
  });
});

describe('limits and stops while an escaped process holds the output pipes', () => {
  const holding: Step = {
    daemon: 'setsid',
    holdOutput: true,
    stubborn: true,
    pidFile: 'daemon.pid',
  };

  it('the wall-clock limit ends the attempt and kills the daemon', async () => {
    const { result } = await runAgent([holding, { say: 'hanging' }, { hang: true }], {
      wallTimeoutMs: 2_000,
    });
    expect(result).toMatchObject({ timedOut: 'wall', aborted: false });
    expect(goneNow(pidIn('daemon.pid'))).toBe(true);
  });

  it('the idle limit ends the attempt and kills the daemon', async () => {
    const { result } = await runAgent([holding, { hang: true }], { idleTimeoutMs: 1_500 });
    expect(result).toMatchObject({ timedOut: 'idle', aborted: false });
    expect(goneNow(pidIn('daemon.pid'))).toBe(true);
  });

  it('a stop (Ctrl-C) ends the attempt and kills the daemon, also when the agent ignores SIGTERM', async () => {
    const stop = new AbortController();
    const running = runAgent([holding, { ignoreTerm: true }, { say: 'ready' }, { hang: true }], {
      signal: stop.signal,
      onLine: (line) => {
        if (line === 'ready') stop.abort();
      },
    });
    const { result } = await running;
    expect(result).toMatchObject({ aborted: true, signal: 'SIGKILL' });
    expect(goneNow(pidIn('daemon.pid'))).toBe(true);
  });

  it('a stop after the agent exited cuts the grace period for a stubborn daemon short', async () => {
    const stop = new AbortController();
    let agent = 0;
    const running = runAgent([holding, { exit: 0 }], {
      signal: stop.signal,
      graceMs: 600_000,
      onSpawn: (pgid) => (agent = pgid),
    });
    expect(await eventually(() => existsSync(path.join(dir, 'daemon.pid')))).toBe(true);
    const daemon = pidIn('daemon.pid');
    // The agent is gone; the daemon holds the pipes and ignores SIGTERM: only the stop ends it.
    expect(await eventually(() => agent > 0 && processGone(agent))).toBe(true);
    expect(processAlive(daemon)).toBe(true);
    stop.abort();
    const { result } = await running;
    expect(result.exitCode).toBe(0);
    expect(goneNow(daemon)).toBe(true);
  });
});

describe('DescendantWatch.signal', () => {
  it('never signals a pid whose start time is not the one it was found with (pid reuse)', async () => {
    const bystander = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], {
      stdio: 'ignore',
    });
    const pid = bystander.pid ?? 0;
    try {
      const start = processStartTime(pid);
      expect(start).not.toBeNull();
      DescendantWatch.signal(new Map([[pid, `${start}0`]]), 'SIGKILL');
      expect(processAlive(pid)).toBe(true);
      DescendantWatch.signal(new Map([[pid, String(start)]]), 'SIGKILL');
      expect(await eventually(() => processGone(pid))).toBe(true);
    } finally {
      bystander.kill('SIGKILL');
    }
  });
});

// The same on a real run (real git, the spawned CLI): what a daemon writes after the agent ended
// must not reach the next checkpoint nor come back after a revert, and the run must not hang.
describe('ralphtool run with an agent that leaves a daemon behind', () => {
  let fixture: RunFixture | undefined;
  afterEach(() => {
    for (const file of ['a.pid', 'b.pid']) {
      const pid = fixture && existsSync(path.join(fixture.logDir, file)) ? pidAt(file) : 0;
      if (pid > 1 && processAlive(pid)) process.kill(pid, 'SIGKILL');
    }
    fixture?.remove();
    fixture = undefined;
  });
  const pidAt = (file: string): number =>
    Number(readFileSync(path.join(fixture?.logDir ?? '', file), 'utf8'));

  it('what a watcher writes after the attempt ended comes back neither after the revert nor in the next checkpoint', async () => {
    fixture = new RunFixture('daemons', stories(1));
    const f = fixture;
    f.scenario({
      // A failed attempt whose watcher writes into the work tree once the agent is gone.
      '1-1': [
        {
          daemon: 'doubleFork',
          writes: 'src/late.txt',
          afterExit: true,
          pidFile: path.join(f.logDir, 'a.pid'),
        },
        { signal: 'FAILED: not yet' },
      ],
      '1-2': succeed('src/one.txt', 'one\n'),
    });
    const run = await f.run(['--json', '--on-complete', 'keep']);
    expect(run.exitCode, run.stderr).toBe(0);
    const watcher = pidAt('a.pid');
    expect(processGone(watcher)).toBe(true);
    const reports = ofType(run.events(), 'error').map((e) => String(e.message));
    expect(reports.some((m) => m.includes(`${watcher} (`))).toBe(true);

    expect(f.git('ls-tree', '-r', '--name-only', 'HEAD').split('\n')).not.toContain('src/late.txt');
    expect(f.exists('src/late.txt')).toBe(false);
    expect(f.status()).toEqual([]);
    expect(f.subjects('main..ralph/daemons')).toEqual(['initial state', 'checkpoint: 1']);
  });

  it('a dev server that ignores SIGTERM and holds stdout neither hangs the run nor writes after it', async () => {
    fixture = new RunFixture('daemons', stories(2));
    const f = fixture;
    f.scenario({
      '1-1': [
        {
          daemon: 'setsid',
          holdOutput: true,
          stubborn: true,
          writes: 'src/server.log',
          pidFile: path.join(f.logDir, 'b.pid'),
        },
        ...succeed('src/one.txt', 'one\n'),
      ],
      '2-*': succeed('src/two.txt', 'two\n'),
    });
    const run = await f.run(['--json', '--on-complete', 'keep']);
    expect(run.exitCode, run.stderr).toBe(0);
    const server = pidAt('b.pid');
    expect(processGone(server)).toBe(true);
    const reports = ofType(run.events(), 'error').map((e) => String(e.message));
    expect(reports.some((m) => m.includes(`${server} (`))).toBe(true);
    // What it wrote while the attempt ran is the attempt's; after that, nothing changed.
    expect(f.status()).toEqual([]);
    expect(f.git('diff', 'HEAD~1', 'HEAD', '--name-only').split('\n')).not.toContain(
      'src/server.log',
    );
    expect(f.subjects('main..ralph/daemons')).toEqual([
      'initial state',
      'checkpoint: 1',
      'checkpoint: 2',
    ]);
  });
});
