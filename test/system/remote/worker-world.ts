import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli, type CliRun } from '../../support/cli.js';
import { fakeAgentFlags } from '../../support/fake-agent.js';
import { LiveCli } from '../../support/live-cli.js';
import { sh } from '../../support/temp-repo.js';
import { ManyFixture } from '../worktree/many-fixture.js';
import type { Machine } from './world.js';

/**
 * Pull-mode workers' world: a bare repository (`origin`) whose main holds several changes, the
 * fixture's repository as the machine that pushed them, and fresh clones as the workers'
 * machines (all on this host). The fake agent's scenarios (one per change) and its log are
 * shared by every machine, so the log counts each story's attempts across all workers.
 */
export class WorkerWorld extends ManyFixture {
  readonly origin: string;
  private readonly extra: string[] = [];

  constructor(changes: Record<string, number>) {
    super(changes);
    this.origin = path.join(this.scratch, 'origin.git');
    sh(this.scratch, 'init', '-q', '--bare', '-b', 'main', this.origin);
    this.git('remote', 'add', 'origin', this.origin);
    this.git('push', '-q', 'origin', 'main');
  }

  /** A new machine: a fresh clone of the remote, on main. */
  clone(name: string): Machine {
    const parent = realpathSync(mkdtempSync(path.join(os.tmpdir(), `ralphtool-${name}-`)));
    this.extra.push(parent);
    const dir = path.join(parent, 'repo');
    sh(parent, 'clone', '-q', this.origin, dir);
    sh(dir, 'config', 'user.name', `Machine ${name}`);
    sh(dir, 'config', 'user.email', `${name}@example.com`);
    sh(dir, 'config', 'commit.gpgsign', 'false');
    return { dir, git: (...args) => sh(dir, ...args) };
  }

  /** `ralphtool worker --from origin <args> --json` on a machine, live. */
  worker(
    machine: Machine,
    args: readonly string[] = [],
    env: Record<string, string> = {},
  ): LiveCli {
    return new LiveCli(
      ['worker', '--from', 'origin', ...args, ...fakeAgentFlags(), '--json'],
      machine.dir,
      this.env(env),
    );
  }

  /** `ralphtool <args>` on a machine, waiting for it to end. */
  on(machine: Machine, args: readonly string[]): Promise<CliRun> {
    return runCli([...args], { cwd: machine.dir, env: this.env(), timeoutMs: 240_000 });
  }

  /** The remote's record of a change's run, as state.json says it. */
  remoteState(change: string): Record<string, unknown> | null {
    try {
      return JSON.parse(
        sh(this.origin, 'show', `refs/ralphtool/${change}/record:state.json`),
      ) as Record<string, unknown>;
    } catch {
      return null;
    }
  }

  /** `git <args>` in the remote. */
  remote(...args: string[]): string {
    return sh(this.origin, ...args);
  }

  override remove(): void {
    super.remove();
    for (const dir of this.extra.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}
