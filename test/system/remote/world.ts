import { mkdtempSync, realpathSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runCli, type CliRun } from '../../support/cli.js';
import { expect } from 'vitest';
import { fakeAgentFlags } from '../../support/fake-agent.js';
import { LiveCli } from '../../support/live-cli.js';
import { eventually, groupMembers, killGroup } from '../../support/processes.js';
import { sh } from '../../support/temp-repo.js';
import { RunFixture, succeed } from '../../run/helpers.js';

/** One machine's checkout: a clone of the remote (or machine A, the fixture's repository). */
export interface Machine {
  dir: string;
  git(...args: string[]): string;
}

/**
 * Several machines and one remote, all real git: the remote is a bare repository (`origin`),
 * machine A is the fixture's repository (its main pushed there, `origin` configured), and each
 * further machine is a fresh clone of the remote with an identity of its own. The fake agent's
 * scenario and log are the fixture's, shared by every machine.
 */
export class RemoteWorld extends RunFixture {
  readonly origin: string;
  private readonly extra: string[] = [];

  constructor(
    change: string,
    storyList: readonly { title: string; tasks: readonly string[] }[],
    extraFiles: Record<string, string> = {},
  ) {
    super(change, storyList, extraFiles);
    this.origin = path.join(this.scratch, 'origin.git');
    sh(this.scratch, 'init', '-q', '--bare', '-b', 'main', this.origin);
    this.git('remote', 'add', 'origin', this.origin);
    this.git('push', '-q', 'origin', 'main');
  }

  get a(): Machine {
    return { dir: this.dir, git: (...args) => this.git(...args) };
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

  /** `ralphtool <args>` on a machine with the fake agent's flags after `command` (run/resume). */
  on(machine: Machine, args: readonly string[], env: Record<string, string> = {}): Promise<CliRun> {
    const [command, ...rest] = args;
    const agent = command === 'run' || command === 'resume' ? fakeAgentFlags() : [];
    return runCli([command ?? '', ...rest, ...agent], {
      cwd: machine.dir,
      env: this.env(env),
      timeoutMs: 240_000,
    });
  }

  /** `git <args>` in the remote. */
  remote(...args: string[]): string {
    return sh(this.origin, ...args);
  }

  /** The remote's refs under a prefix, name → commit. */
  remoteRefs(prefix = 'refs/'): Map<string, string> {
    const out = this.remote('for-each-ref', '--format=%(refname) %(objectname)', prefix);
    return new Map(
      out
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => l.split(' ') as [string, string]),
    );
  }

  override remove(): void {
    super.remove();
    for (const dir of this.extra.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}

/** The remote's record of the run, as state.json says it. */
export function remoteState(w: RemoteWorld, change: string): Record<string, unknown> | null {
  try {
    return JSON.parse(w.remote('show', `refs/ralphtool/${change}/record:state.json`)) as Record<
      string,
      unknown
    >;
  } catch {
    return null;
  }
}

/**
 * Machine A (the fixture's repository): story 1 done and pushed, then killed (-9, agent too) half-way through story 2
 * (its work so far, src/two-half.txt, pushed as the progress save). Stories 2 and 3 succeed next.
 */
export async function crashOnA(w: RemoteWorld, change: string): Promise<void> {
  w.scenario({
    '1-1': succeed('src/one.txt', 'one\n'),
    '2-1': [
      { write: 'src/two-half.txt', content: 'half\n' },
      { say: 'working' },
      { waitFor: path.join(w.scratch, 'never') },
    ],
    '2-2': succeed('src/two.txt', 'two\n'),
    '3-1': succeed('src/three.txt', 'three\n'),
  });
  const live = new LiveCli(
    // A short TTL: a heartbeat, and with it a save of the attempt going on, every second.
    [
      'run',
      change,
      ...fakeAgentFlags(),
      '--push',
      'origin',
      '--claim-ttl',
      '3s',
      '--json',
      '--on-complete',
      'keep',
    ],
    w.dir,
    w.env(),
  );
  await live.waitFor((e) => e.type === 'agent.message' && e.text === 'working');
  // The remote knows story 2 began (its record is pushed at each attempt's start).
  expect(await eventually(() => remoteState(w, change)?.currentStory === '2', 60_000)).toBe(true);
  // ...and the half-done attempt's work so far.
  const progress = `refs/ralphtool/${change}/progress`;
  const halfOnRemote = (): boolean => {
    try {
      return w.remote('show', `${progress}:src/two-half.txt`) === 'half\n';
    } catch {
      return false; // no progress save yet, or one made before the agent wrote the file
    }
  };
  expect(await eventually(halfOnRemote, 60_000)).toBe(true);
  await live.kill9();
  const pgid = w.state().agentPgid as number | null;
  if (pgid !== null) {
    killGroup(pgid);
    await eventually(() => groupMembers(pgid).length === 0);
  }
}
