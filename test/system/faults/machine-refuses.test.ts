import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../support/cli.js';
import { fakeAgentFlags } from '../../support/fake-agent.js';
import { printedCommands } from '../../support/printed-command.js';
import { FaultWorld } from './support/world.js';

// The machine refuses a write — a read-only git directory, a full disk — and ralphtool says
// so in one line with what to do, never "internal error", and the run is where `status` says.
// Real file systems: a read-only bind mount and a 3 MB tmpfs (root with mount rights; skipped
// where a test cannot mount).

const CHANGE = 'refused';
const mounts: string[] = [];
const folders: string[] = [];
let world: FaultWorld | undefined;
afterEach(() => {
  for (const dir of mounts.splice(0).reverse()) spawnSync('umount', [dir]);
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true });
  world?.remove();
  world = undefined;
});

function canMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  const probe = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-mount-probe-'));
  const ok = spawnSync('mount', ['-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', probe]).status === 0;
  if (ok) spawnSync('umount', [probe]);
  rmSync(probe, { recursive: true, force: true });
  return ok;
}

function mount(args: string[], at: string): void {
  execFileSync('mount', [...args, at]);
  mounts.push(at);
}

describe.skipIf(!canMount())('the machine refuses a write', () => {
  it('a read-only git directory: one line naming it, exit 1, nothing changed', async () => {
    world = new FaultWorld(CHANGE, 1);
    const w = world;
    const gitDir = path.join(w.dir, '.git');
    const refs = w.git('for-each-ref');
    mount(['--bind', gitDir], gitDir);
    execFileSync('mount', ['-o', 'remount,ro,bind', gitDir]);
    const result = await w.loop('run');
    expect(result.exitCode).toBe(1);
    expect(result.stderr).not.toContain('internal error');
    expect(result.stderr).not.toMatch(/\n\s+at /);
    expect(result.stderr).toMatch(/read-only/i);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    // The way on it names works as printed, on the read-only repository.
    const [printed] = printedCommands(result.stderr, 'ralphtool');
    expect(printed).toEqual(['status']);
    const status = await w.cli(printed ?? []);
    expect(status.exitCode, status.stderr).toBe(0);
    spawnSync('umount', [gitDir]);
    mounts.pop();
    expect(w.git('for-each-ref')).toBe(refs);
    expect(w.currentBranch()).toBe('main');
  });

  it('a full disk while an attempt is saved: said with its fix, and status shows the run to resume', async () => {
    const disk = mkdtempSync(path.join(os.tmpdir(), 'ralphtool-full-'));
    folders.push(disk);
    mount(['-t', 'tmpfs', '-o', 'size=3m', 'tmpfs'], disk);
    const repo = path.join(disk, 'repo');
    const git = (...args: string[]): string =>
      execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
    mkdirSync(path.join(repo, 'openspec/changes', CHANGE), { recursive: true });
    git('init', '-q', '-b', 'main');
    git('config', 'user.name', 'Test');
    git('config', 'user.email', 'test@example.com');
    writeFileSync(
      path.join(repo, 'openspec/changes', CHANGE, 'tasks.md'),
      '## 1. One\n\n- [ ] 1.1 a\n\n## 2. Two\n\n- [ ] 2.1 b\n',
    );
    git('add', '-A');
    git('commit', '-q', '-m', 'init');
    // Story 2 writes a file that fits on the disk, but not a second time in git's objects.
    const scenario = path.join(disk, '..', `${path.basename(disk)}-scenario.json`);
    folders.push(scenario);
    // Random bytes: git cannot compress them away.
    const big = randomBytes(1_500_000).toString('base64');
    writeFileSync(
      scenario,
      JSON.stringify({
        '1-1': [{ write: 'a.txt', content: 'a\n' }, { tick: 'all' }, { signal: 'COMPLETE' }],
        '2-*': [{ write: 'big.bin', content: big }, { signal: 'FAILED: too big' }],
      }),
    );
    const env = { FAKE_AGENT_SCENARIO: scenario };
    const run = await runCli(
      ['run', CHANGE, ...fakeAgentFlags(), '--max-retries', '0', '--on-complete', 'keep'],
      { cwd: repo, env },
    );
    expect(run.exitCode).toBe(1);
    expect(run.stderr).not.toContain('internal error');
    expect(run.stderr).toMatch(/No space left on device.*free some disk space/);
    const status = await runCli(['status', '--json'], { cwd: repo, env });
    const runs = (JSON.parse(status.stdout) as { runs: { change: string; state: string }[] }).runs;
    expect(runs).toMatchObject([{ change: CHANGE, state: 'interrupted' }]);
  });
});
