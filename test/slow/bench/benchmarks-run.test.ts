import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { execProgram } from '../../../src/process/exec.js';
import { CLI_PATH } from '../../support/cli.js';
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
    expect(stdout).toMatch(/--push \/ local: \d+\.\d+×/);
  }, 240_000);

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

  it('list-changes.mjs reports node, ralphtool and a baseline for a tiny run', async () => {
    const stdout = await runScript('bench/list-changes.mjs', [
      ...['--changes', '5', '--rounds', '1', '--cli', CLI_PATH, '--baseline', CLI_PATH],
    ]);
    expect(stdout).toMatch(/node, doing nothing\s+\S+ ms/);
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
