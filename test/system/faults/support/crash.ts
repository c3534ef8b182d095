import { execFileSync, spawnSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cleanGitEnv } from '../../../support/temp-repo.js';
import { eventually, groupMembers, killGroup } from '../../../support/processes.js';
import { initialRunState } from '../../../../src/checkpoint/start.js';
import type { RunState } from '../../../../src/checkpoint/state.js';
import type { FaultWorld } from './world.js';

/** A pid that certainly belonged to a process that has ended (for stale locks and states). */
export function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  });
  return Number(child.stdout);
}

/**
 * Runs the loop until the agent says `marker`, then kill -9s ralphtool and (unless told
 * otherwise) the agent it left behind, so the test can arrange the exact crash state.
 * Returns the state file as the crash left it.
 */
export async function crashWhileAgentRuns(
  w: FaultWorld,
  marker: string,
  opts: { killAgent?: boolean; extra?: readonly string[] } = {},
): Promise<ReturnType<FaultWorld['state']>> {
  const live = w.spawn('run', opts.extra ?? []);
  await live.waitFor((e) => e.type === 'agent.message' && e.text === marker);
  await live.kill9();
  const state = w.state();
  const pgid = state.agentPgid as number | null;
  if (pgid !== null) {
    w.strayGroups.push(pgid);
    if (opts.killAgent !== false) {
      killGroup(pgid);
      await eventually(() => groupMembers(pgid).length === 0);
    }
  }
  return state;
}

/** The state a crash during "start" leaves, written before any git step (docs/git-protocol.md, "Start"). */
export function startState(w: FaultWorld): RunState {
  const head = { kind: 'branch' as const, name: 'main', sha: w.sha('main') };
  return { ...initialRunState(w.change, w.branch, head), pid: deadPid() };
}

/** A lock file as a ralphtool that died would have left it. */
export function writeStaleLock(file: string, change: string): void {
  writeFileSync(
    file,
    `${JSON.stringify({ pid: deadPid(), host: os.hostname(), startTime: '1', change, since: new Date().toISOString() })}\n`,
  );
}

/**
 * What the first step of a revert does: the whole work tree (untracked files too) saved as a
 * commit on top of the checkpoint under `ref`, through a scratch index, touching nothing else.
 */
export function saveWorkTreeAs(w: FaultWorld, ref: string, checkpoint: string): string {
  const index = path.join(w.scratch, 'scratch-index');
  const env = { ...cleanGitEnv(), GIT_INDEX_FILE: index };
  const git = (...args: string[]): string =>
    execFileSync('git', args, { cwd: w.dir, env, encoding: 'utf8' }).trim();
  try {
    git('read-tree', checkpoint);
    git('add', '-A');
    const tree = git('write-tree');
    const commit = git('commit-tree', tree, '-p', checkpoint, '-m', 'saved by hand');
    git('update-ref', ref, commit);
    return commit;
  } finally {
    rmSync(index, { force: true });
  }
}
