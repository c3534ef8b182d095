import { execFileSync } from 'node:child_process';
import { expect } from 'vitest';
import { cleanGitEnv } from '../../../support/temp-repo.js';
import { runCli, type CliRun } from '../../../support/cli.js';
import { snapshotTree } from './snapshot.js';
import { agentFlags, type FaultWorld } from './world.js';

/** git in any work tree of the world's repository. */
export function gitIn(dir: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd: dir, env: cleanGitEnv(), encoding: 'utf8' });
}

/**
 * Everything of one work tree a wrong reset, clean or checkout would change: where HEAD
 * points, the index entries (with their modes and blobs) and every file byte for byte
 * (ignored ones too).
 */
export function treeFingerprint(dir: string): Record<string, unknown> {
  return {
    head: gitIn(dir, 'rev-parse', '--symbolic-full-name', 'HEAD').trim(),
    headSha: gitIn(dir, 'rev-parse', '--verify', '-q', 'HEAD').trim(),
    index: gitIn(dir, 'ls-files', '--stage', '-z'),
    files: [...snapshotTree(dir)],
  };
}

/** `ralphtool status --json` in `dir`: the recorded run of the world's change. */
export async function runStatus(w: FaultWorld, dir = w.dir): Promise<Record<string, unknown>> {
  const result = await runCli(['status', '--json'], { cwd: dir, env: w.env(), timeoutMs: 300_000 });
  expect(result.exitCode, result.stderr).toBe(0);
  const { runs } = JSON.parse(result.stdout) as { runs: Record<string, unknown>[] };
  const run = runs.find((r) => r.change === w.change);
  if (!run) throw new Error(`status shows no run of ${w.change}: ${result.stdout}`);
  return run;
}

/**
 * The one command a `next` advice names: the first `quoted` command, else the text before
 * the alternatives; `--cleanup|--keep` is taken as `--cleanup` (the test's choice).
 */
export function adviceCommand(next: string): string[] {
  const quoted = /`([^`]+)`/.exec(next);
  const text = quoted ? quoted[1]! : next.split('   (')[0]!;
  return text
    .trim()
    .split(/\s+/)
    .map((word) => (word === '--cleanup|--keep' ? '--cleanup' : word));
}

/**
 * Reads `status` in `dir`, runs the command its `next` names exactly (ralphtool or git), and
 * again, until the run is finished; returns the advice followed. Each command must succeed.
 */
export async function followAdvice(
  w: FaultWorld,
  dir = w.dir,
  maxSteps = 4,
): Promise<{ followed: string[]; last: CliRun | null }> {
  const followed: string[] = [];
  let last: CliRun | null = null;
  for (let step = 0; step < maxSteps; step++) {
    const run = await runStatus(w, dir);
    if (run.state === 'finished') return { followed, last };
    const next = String(run.next);
    followed.push(next);
    const [program, ...args] = adviceCommand(next);
    if (program === 'git') {
      gitIn(dir, ...args);
      continue;
    }
    expect(program, next).toBe('ralphtool');
    const agentArgs = args.includes('resume')
      ? [...agentFlags(), '--json', '--on-complete', 'keep']
      : [];
    last = await runCli([...args, ...agentArgs], { cwd: dir, env: w.env(), timeoutMs: 300_000 });
    expect(last.exitCode, `${next}\n${last.stderr}`).toBe(0);
  }
  throw new Error(`still not finished after following: ${followed.join(' / ')}`);
}
