import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { execProgram } from '../../../src/process/exec.js';
import { CLI_PATH } from '../../support/cli.js';
import { sandboxToolsAvailable } from '../../support/sandbox-tools.js';
import { tmuxAvailable } from '../../support/tmux.js';

/** The checkout (vitest runs from it, as CLI_PATH assumes). */
const ROOT = path.resolve();

async function runScript(script: string, args: readonly string[]): Promise<string> {
  const result = await execProgram(process.execPath, [path.join(ROOT, script), ...args], {
    baseEnv: process.env,
    cwd: ROOT,
    timeoutMs: 540_000,
    reject: false,
  });
  expect(result.exitCode, result.stderr).toBe(0);
  // Every report is dated with the machine's load at its start and end (bench/lib/load.mjs).
  expect(result.stdout).toMatch(
    /^load at start: \d{4}-\d\d-\d\d \d\d:\d\d UTC, \d+ cores, load average [\d.]+ [\d.]+ [\d.]+/m,
  );
  expect(result.stdout).toMatch(/^load at end: +\d{4}-\d\d-\d\d \d\d:\d\d UTC/m);
  return result.stdout;
}

/**
 * The benchmarks are not part of the suite (they measure, and take minutes), but they must
 * keep working: a rename in src/ once broke loop-overhead.mjs without anyone noticing. This
 * runs each at its smallest size against the built CLI and checks it reports, nothing more.
 */
describe('the benchmark scripts still run', () => {
  it('loop-overhead.mjs reports the floor, the replay and ralphtool for a tiny run', async () => {
    const stdout = await runScript('bench/loop-overhead.mjs', [
      '--rounds',
      '1',
      '--stories',
      '2',
      '--files',
      '0',
      '--long',
      '3',
      '--long-rounds',
      '1',
      '--cli',
      CLI_PATH,
    ]);
    // The replay throws when its branch does not end where the recorded run's did: reaching the
    // table means ralphtool's git sequence was replayed exactly.
    expect(stdout).toContain('ralphtool git replayed');
    expect(stdout).toMatch(/small \(20 files\)\s+fails once(\s+\S+ ms \([\d.–]+\)){3}\s+\d+\.\d+×/);
    expect(stdout).toMatch(/^3\s+\S+ ms/m);
  }, 600_000);

  it('stream-throughput.mjs reports both streams for a tiny run', async () => {
    const stdout = await runScript('bench/stream-throughput.mjs', [
      '--bytes',
      '2000000',
      '--lines',
      '20000',
      '--rounds',
      '1',
      '--cli',
      CLI_PATH,
    ]);
    expect(stdout).toMatch(/Claude stream-json\s+2 MB\s.*MB\/s.*MiB/);
    expect(stdout).toMatch(/tiny text lines\s+20000 lines\s.*lines\/s.*MiB/);
  }, 600_000);

  it('remote-push.mjs reports the cost of --push for a tiny run', async () => {
    const stdout = await runScript('bench/remote-push.mjs', [
      '--rounds',
      '1',
      '--stories',
      '1',
      '--fail-once',
      '--cli',
      CLI_PATH,
    ]);
    expect(stdout).toContain('pushes per story');
    expect(stdout).toMatch(/this build: --push \/ local \d+\.\d+×, -?\d+ ms per story above local/);
  }, 240_000);

  it('push-cost.mjs reports one push split into ralphtool and git for a tiny run', async () => {
    const stdout = await runScript('bench/push-cost.mjs', [
      ...['--rounds', '1', '--pushes', '2', '--cli', CLI_PATH],
    ]);
    expect(stdout).toMatch(/this build\s+-?\d+\.\d ms\s+-?\d+\.\d ms\s+-?\d+\.\d ms/);
  }, 240_000);

  it('review-round.mjs reports the review round against the reviewer alone for a tiny run', async () => {
    const stdout = await runScript('bench/review-round.mjs', [
      ...['--rounds', '1', '--stories', '1', '--cli', CLI_PATH],
    ]);
    expect(stdout).toMatch(/the review round \(events\)\s+\S+ ms \([\d.–]+\)\s+\d+\.\d+×/);
    expect(stdout).toMatch(/the reviewer alone \(floor\)\s+\S+ ms/);
  }, 240_000);

  it("worker-pickup.mjs reports a worker's pick-up against a start by hand for a tiny run", async () => {
    const stdout = await runScript('bench/worker-pickup.mjs', [
      ...['--rounds', '1', '--changes', '2', '--cli', CLI_PATH],
    ]);
    expect(stdout).toMatch(/worker: one change → the next\s+\S+ ms \([\d.–]+\)\s+\d+\.\d+×/);
    expect(stdout).toMatch(/by hand: run <change> --push origin\s+\S+ ms/);
  }, 240_000);

  it("governor-check.mjs reports the governor's check against a bare read for a tiny run", async () => {
    const stdout = await runScript('bench/governor-check.mjs', [
      ...['--rounds', '4', '--remote-rounds', '2'],
    ]);
    expect(stdout).toMatch(
      /the governor's check \(file read \+ decision\)\s+[\d.]+ ms .*\d+\.\d+×/,
    );
    expect(stdout).toMatch(
      /a look at the remote's entry \(fetch \+ cat-file\)\s+[\d.]+ ms .*\d+\.\d+×/,
    );
  }, 240_000);

  it('guarantee-floor.mjs reports the protocol floor, the guarantee floor and ralphtool for a tiny run failing once', async () => {
    const stdout = await runScript('bench/guarantee-floor.mjs', [
      ...['--rounds', '1', '--stories', '2', '--rss-mb', '0', '--fail-once', '--cli', CLI_PATH],
    ]);
    expect(stdout).toMatch(/^protocol floor \(bash\)\s+\S+ ms \([\d.–]+\)\s+1\.00×/m);
    expect(stdout).toMatch(
      /^guarantee floor \(node\)\s+\S+ ms \([\d.–]+\)\s+\d+\.\d+×\s+-?[\d.]+ ms/m,
    );
    expect(stdout).toMatch(/^ralphtool\s+\S+ ms \([\d.–]+\)\s+\d+\.\d+×/m);
    expect(stdout).toMatch(/^stories failing once, then accepted, small repository/m);
    expect(stdout).toMatch(/^ {2}durable writes: [\d.]+ ms$/m);
    expect(stdout).toMatch(/^ {2}a failed attempt saved and reverted: [\d.]+ ms$/m);
    expect(stdout).toMatch(/^ {2}add -A \+ commit: [\d.]+ ms$/m);
  }, 240_000);

  it('workers.mjs reports the wall time of one worker for a tiny run', async () => {
    const stdout = await runScript('bench/workers.mjs', [
      ...['--changes', '1', '--stories', '1', '--sleep-ms', '10', '--workers', '1'],
      ...['--cli', CLI_PATH],
    ]);
    expect(stdout).toMatch(/1 worker\s+[\d.]+ s/);
  }, 240_000);

  it.skipIf(!sandboxToolsAvailable())(
    'sandbox-startup.mjs reports what containing an attempt adds for a tiny run',
    async () => {
      const stdout = await runScript('bench/sandbox-startup.mjs', ['--rounds', '2']);
      expect(stdout).toMatch(/added [\d.]+ ms/);
    },
    240_000,
  );

  it.skipIf(!sandboxToolsAvailable())(
    'sandbox-startup-vs.mjs sets two builds side by side (here the same one twice)',
    async () => {
      const stdout = await runScript('bench/sandbox-startup-vs.mjs', [
        ...['--against', 'dist', '--pairs', '1', '--rounds', '2'],
      ]);
      expect(stdout).toMatch(
        /\| added per attempt \(contained − plain\) \| [\d.]+ ms \| [\d.]+ ms \| [\d.]+×/,
      );
      expect(stdout).toContain('load at end:');
    },
    240_000,
  );

  it.skipIf(!sandboxToolsAvailable())(
    'sandbox-run.mjs sets a run with and without --sandbox side by side for two builds (here one)',
    async () => {
      const stdout = await runScript('bench/sandbox-run.mjs', [
        ...['--against', CLI_PATH, '--cli', CLI_PATH, '--rounds', '1', '--stories', '1'],
      ]);
      expect(stdout).toMatch(/\| what --sandbox adds \| -?[\d.]+ ms \| -?[\d.]+ ms \| -?[\d.]+×/);
    },
    240_000,
  );

  it('soak.mjs runs one seed and finds it consistent', async () => {
    const stdout = await runScript('bench/soak.mjs', [
      '--seeds',
      '1',
      '--stories',
      '3',
      '--cli',
      CLI_PATH,
    ]);
    expect(stdout).toContain('consistent: 1 of 1');
  }, 240_000);

  it('list-changes.mjs reports node, the list floor, ralphtool and a baseline for a tiny run', async () => {
    const stdout = await runScript('bench/list-changes.mjs', [
      ...['--changes', '5', '--rounds', '1', '--cli', CLI_PATH, '--baseline', CLI_PATH],
    ]);
    expect(stdout).toMatch(/node, doing nothing\s+\S+ ms/);
    expect(stdout).toMatch(/list floor \(node\)\s+\S+ ms \([\d.–]+\)\s+\d+\.\d+×/);
    expect(stdout).toMatch(/ralphtool list\s+\S+ ms \([\d.–]+\)\s+\d+\.\d+×/);
    expect(stdout).toMatch(/baseline list\s+\S+ ms/);
  }, 240_000);

  it.skipIf(!tmuxAvailable())(
    'ui-flood.mjs reports the CPU and the key latency of the UI for a tiny run',
    async () => {
      const stdout = await runScript('bench/ui-flood.mjs', [
        ...['--rounds', '1', '--seconds', '1', '--keys', '2', '--rate', '2000', '--cli', CLI_PATH],
      ]);
      expect(stdout).toMatch(/ralphtool\s+\d+ % \(\d+ %–\d+ %\)\s+\d+ ms \(\d+–\d+\)/);
    },
    240_000,
  );
});
