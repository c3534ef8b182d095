import { spawn, type ChildProcess } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  realpathSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { CLI_PATH, runCli, type CliRun } from '../support/cli.js';
import {
  FAKE_AGENT,
  fakeAgentFlags,
  quote,
  type Scenario,
  type Step,
} from '../support/fake-agent.js';
import { makeChangeRepo, type TempRepo } from '../support/temp-repo.js';

export { FAKE_AGENT, fakeAgentFlags, quote, stories } from '../support/fake-agent.js';
export type { Scenario, Step } from '../support/fake-agent.js';
export type RunEventJson = { type: string; ts?: string; [key: string]: unknown };

/** The usual successful attempt: write a file, tick every task of the story, COMPLETE. */
export function succeed(file: string, content: string): Step[] {
  return [{ write: file, content }, { tick: 'all' }, { say: 'all done' }, { signal: 'COMPLETE' }];
}

/** Git's environment for the CLI: nothing inherited that points git elsewhere. */
const NO_GIT_POINTERS = {
  GIT_DIR: undefined,
  GIT_WORK_TREE: undefined,
  GIT_INDEX_FILE: undefined,
  GIT_OBJECT_DIRECTORY: undefined,
};

/**
 * One test's world: a repository holding change `change`, and a scratch folder outside it
 * for the agent's scenario and logs. `remove()` deletes both.
 */
export class RunFixture {
  readonly repo: TempRepo;
  readonly scratch: string;
  readonly logDir: string;
  readonly scenarioFile: string;

  constructor(
    readonly change: string,
    storyList: readonly { title: string; tasks: readonly string[] }[],
    extraFiles: Record<string, string> = {},
  ) {
    this.repo = makeChangeRepo(change, storyList, extraFiles);
    this.scratch = realpathSync(mkdtempSync(path.join(os.tmpdir(), 'ralphtool-run-')));
    this.logDir = path.join(this.scratch, 'log');
    this.scenarioFile = path.join(this.scratch, 'scenario.json');
  }

  get dir(): string {
    return this.repo.dir;
  }

  /** `.git/ralphtool/<change>/` */
  get runDir(): string {
    return path.join(this.dir, '.git', 'ralphtool', this.change);
  }

  get learningsPath(): string {
    return path.join(this.runDir, 'learnings.md');
  }

  scenario(scenario: Scenario): this {
    writeFileSync(this.scenarioFile, JSON.stringify(scenario));
    return this;
  }

  /** Environment for the CLI (and through it, the fake agent). */
  env(extra: Record<string, string | undefined> = {}): Record<string, string | undefined> {
    return {
      ...NO_GIT_POINTERS,
      FAKE_AGENT_SCENARIO: this.scenarioFile,
      FAKE_AGENT_LOG_DIR: this.logDir,
      ...extra,
    };
  }

  /** `ralphtool run <change> <args>` with the fake agent, waiting for it to end. */
  run(
    args: readonly string[],
    opts: { env?: Record<string, string | undefined>; agent?: boolean } = {},
  ): Promise<CliRun> {
    const agent = opts.agent === false ? [] : fakeAgentFlags();
    return runCli(['run', this.change, ...agent, ...args], {
      cwd: this.dir,
      env: this.env(opts.env),
      timeoutMs: 240_000,
    });
  }

  /** Starts `ralphtool run` as a live process so that a test can signal it. */
  spawn(args: readonly string[]): LiveRun {
    return new LiveRun(
      spawn(process.execPath, [CLI_PATH, 'run', this.change, ...fakeAgentFlags(), ...args], {
        cwd: this.dir,
        env: definedOnly({ ...process.env, NO_COLOR: '1', ...this.env() }),
        stdio: ['ignore', 'pipe', 'pipe'],
      }),
    );
  }

  /** The prompt the agent received for an attempt (recorded by the fake agent). */
  prompt(storyId: string, attempt: number): string {
    return readFileSync(path.join(this.logDir, `prompt-${storyId}-${attempt}.md`), 'utf8');
  }

  /** True when the agent was started for this attempt. */
  invoked(storyId: string, attempt: number): boolean {
    return existsSync(path.join(this.logDir, `invocation-${storyId}-${attempt}.json`));
  }

  /** Pid of the child a `{"hang": true, "withChild": true}` agent started. */
  childPid(storyId: string, attempt: number): number {
    const file = path.join(this.logDir, `child-${storyId}-${attempt}.pid`);
    return Number(readFileSync(file, 'utf8').trim());
  }

  state(): Record<string, unknown> {
    return JSON.parse(readFileSync(path.join(this.runDir, 'state.json'), 'utf8')) as Record<
      string,
      unknown
    >;
  }

  git(...args: string[]): string {
    return this.repo.git(...args);
  }

  currentBranch(): string {
    return this.git('rev-parse', '--abbrev-ref', 'HEAD').trim();
  }

  branchExists(branch: string): boolean {
    return this.git('branch', '--list', branch).trim() !== '';
  }

  /** Subjects of the commits on `range`, oldest first. */
  subjects(range: string): string[] {
    return this.git('log', '--reverse', '--format=%s', range)
      .split('\n')
      .filter((line) => line !== '');
  }

  /** Every ref under refs/ralphtool/. */
  attemptRefs(): string[] {
    return this.git('for-each-ref', '--format=%(refname)', 'refs/ralphtool/')
      .split('\n')
      .filter((line) => line !== '');
  }

  /** `git status --porcelain` lines, untracked files listed one by one. */
  status(): string[] {
    return this.git('status', '--porcelain', '--untracked-files=all')
      .split('\n')
      .filter((line) => line !== '');
  }

  read(file: string): string {
    return readFileSync(path.join(this.dir, file), 'utf8');
  }

  exists(file: string): boolean {
    return existsSync(path.join(this.dir, file));
  }

  /** An executable `#!/bin/sh` wrapper that runs the fake agent (for RALPHTOOL_CLAUDE_BIN). */
  agentWrapper(): string {
    const file = path.join(this.scratch, 'fake-claude');
    writeFileSync(file, `#!/bin/sh\nexec ${quote(process.execPath)} ${quote(FAKE_AGENT)} "$@"\n`);
    chmodSync(file, 0o755);
    return file;
  }

  remove(): void {
    this.repo.remove();
    rmSync(this.scratch, { recursive: true, force: true });
  }
}

/** A `ralphtool run` process under the test's control: its events as they come, its exit. */
export class LiveRun {
  readonly events: RunEventJson[] = [];
  stderr = '';
  private buffer = '';
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;

  constructor(readonly child: ChildProcess) {
    child.stdout?.setEncoding('utf8');
    child.stderr?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      this.buffer += chunk;
      const lines = this.buffer.split('\n');
      this.buffer = lines.pop() ?? '';
      for (const line of lines) {
        if (line.trim() !== '') this.events.push(JSON.parse(line) as RunEventJson);
      }
    });
    child.stderr?.on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) => {
      child.on('close', (code, signal) => resolve({ code, signal }));
    });
  }

  /** Resolves once an event matching `match` has been printed; fails if the process ends first. */
  async waitFor(match: (event: RunEventJson) => boolean, timeoutMs = 60_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    let ended = false;
    void this.exited.then(() => {
      ended = true;
    });
    while (!this.events.some(match)) {
      if (ended)
        throw new Error(`ralphtool ended before the awaited event; stderr:\n${this.stderr}`);
      if (Date.now() > deadline) throw new Error('the awaited event never came');
      await sleep(50);
    }
  }

  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Waits until `check` holds, polling; false when it never did within `timeoutMs`. */
export async function eventually(check: () => boolean, timeoutMs = 20_000): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!check()) {
    if (Date.now() > deadline) return false;
    await sleep(100);
  }
  return true;
}

/** A process is gone when /proc has no entry for it or it is a zombie waiting to be reaped. */
export function processGone(pid: number): boolean {
  const info = procStat(pid);
  return info === null || info.state === 'Z' || info.state === 'X';
}

/** State and process group of a live process, from /proc/<pid>/stat; null when there is none. */
export function procStat(pid: number): { state: string; pgrp: number } | null {
  let text: string;
  try {
    text = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return null;
  }
  // "pid (comm) state ppid pgrp …": comm may hold spaces and parentheses.
  const fields = text.slice(text.lastIndexOf(')') + 2).split(' ');
  return { state: fields[0] ?? '?', pgrp: Number(fields[2]) };
}

/** Event types in order, without the agent's own chatter. */
export function loopTypes(events: readonly RunEventJson[]): string[] {
  return events
    .map((e) => e.type)
    .filter((t) => t !== 'agent.message' && t !== 'agent.tool' && t !== 'agent.result');
}

export function ofType(events: readonly RunEventJson[], type: string): RunEventJson[] {
  return events.filter((e) => e.type === type);
}

/** The one event of a type; throws when there is not exactly one. */
export function single(events: readonly RunEventJson[], type: string): RunEventJson {
  const found = ofType(events, type);
  if (found.length !== 1) {
    throw new Error(`expected one ${type} event, got ${found.length}: ${JSON.stringify(events)}`);
  }
  return found[0] as RunEventJson;
}

function definedOnly(env: Record<string, string | undefined>): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries(env)) if (value !== undefined) out[key] = value;
  return out;
}
