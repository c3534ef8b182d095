import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RuntimeError } from '../core/errors.js';
import {
  isEndMark,
  mergeBlocks,
  sandboxBlocksOf,
  type SandboxBlock,
} from '../core/sandbox-blocks.js';
import { innerCommand, uncontainedReason, type SandboxPolicy } from '../core/sandbox-policy.js';
import type { SandboxManager } from '@anthropic-ai/sandbox-runtime';
import { execProgram, SHORT_ANSWER_MAX_BUFFER } from './exec.js';

/**
 * `--sandbox` (docs/sandbox.md): every agent process, and all it starts, runs inside
 * `@anthropic-ai/sandbox-runtime` (bubblewrap, seccomp, and a filtering proxy for the network).
 * This module is the only one that knows the runtime. It fails closed: a command is only ever
 * run wrapped after the runtime was set up and a wrapped `true` ran, and only when the runtime's
 * answer starts bubblewrap with the network cut (core/sandbox-policy.ts `uncontainedReason`).
 */

/** What to do when the sandbox's programs are missing: named in the refusal, and by `doctor`. */
export const INSTALL_REMEDY =
  'install them (`apt-get install bubblewrap socat ripgrep`), or run without --sandbox';
/** What to do when bubblewrap cannot make its namespaces (user namespaces refused). */
export const USERNS_REMEDY =
  'allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1; on Ubuntu 24.04 also kernel.apparmor_restrict_unprivileged_userns=0; in a container, one that permits them), or run without --sandbox';

/** The runtime's own module, loaded on first use (a run without --sandbox never loads it). */
type Runtime = typeof SandboxManager;

/** A command ready to start contained: an argument array, never a shell of ralphtool's own. */
export interface WrappedCommand {
  program: string;
  args: string[];
  /** Where to start it: a folder outside every writable path (the work tree is `cd`'d into). */
  cwd: string;
  /**
   * Call once the command ended: the runtime removes what it mounted for it. Returns what the
   * sandbox refused the command (core/sandbox-blocks.ts), judged by its policy.
   */
  done: () => Promise<SandboxBlock[]>;
}

/** The sandbox for one run, while it is open; `release` when the run ends. */
export interface SandboxSession {
  /**
   * `argv` contained, started in `workTree`: `policyFor` is given the command's private
   * temporary folder (its TMPDIR, removed by `done`) and returns what it may do.
   */
  wrap(
    argv: readonly string[],
    workTree: string,
    policyFor: (tmpDir: string) => SandboxPolicy,
  ): Promise<WrappedCommand>;
  release(): Promise<void>;
}

interface Shared {
  runtime: Runtime;
  /** Empty, never writable inside: the runtime protects files relative to its cwd. */
  neutral: string;
  base: string;
  hosts: Map<string, number>;
  users: number;
  /** What the sandbox refused each wrapped command so far, by its attribution key (encoded). */
  seen: Map<string, Refused>;
  /** Private temporary folders of ended commands still being removed (awaited by release). */
  removals: Set<Promise<void>>;
  stopWatching: () => void;
}

interface Refused {
  policy: SandboxPolicy;
  blocks: SandboxBlock[];
  /** The path the command's shell tries to write once its agent ended (innerCommand). */
  endMark: string;
  /** Whether the monitor has passed on that attempt: it holds all of the command's lines. */
  ended: boolean;
  onEnd: (() => void) | null;
}

/** Attribution keys of wrapped commands: unique in the process. */
let wraps = 0;

let shared: Promise<Shared> | null = null;
/** Wraps happen one at a time: each changes the process's cwd while it runs (see wrapOne). */
let wrapQueue: Promise<unknown> = Promise.resolve();

/**
 * Opens the sandbox for a run whose agents may reach `hosts`: sets the runtime up once per
 * process (checks its programs, starts its proxy, runs a wrapped `true`), and refuses with one
 * line naming what to install or enable when any step fails. Several runs in one process share
 * the runtime; its proxy allows the union of their hosts.
 */
export async function openSandbox(
  hosts: readonly string[],
  env: NodeJS.ProcessEnv,
): Promise<SandboxSession> {
  shared ??= setUp(hosts, env).catch((error: unknown) => {
    shared = null;
    throw error;
  });
  const s = await shared;
  s.users += 1;
  for (const host of hosts) s.hosts.set(host, (s.hosts.get(host) ?? 0) + 1);
  s.runtime.updateConfig(runtimeConfig([...s.hosts.keys()]));
  let released = false;
  return {
    wrap: (argv, workTree, policyFor) => wrapOne(s, argv, workTree, policyFor),
    async release() {
      if (released) return;
      released = true;
      for (const host of hosts) {
        const n = (s.hosts.get(host) ?? 1) - 1;
        if (n <= 0) s.hosts.delete(host);
        else s.hosts.set(host, n);
      }
      s.users -= 1;
      if (s.users > 0) {
        s.runtime.updateConfig(runtimeConfig([...s.hosts.keys()]));
        return;
      }
      shared = null;
      s.stopWatching();
      await Promise.all(s.removals);
      await s.runtime.reset();
      await rm(s.base, { recursive: true, force: true });
    },
  };
}

/** Whether `--sandbox` works here (`doctor`): null when it does, else why not and what to do. */
export async function sandboxProblem(
  env: NodeJS.ProcessEnv,
): Promise<{ reason: string; remedy: string } | null> {
  try {
    await (await openSandbox([], env)).release();
    return null;
  } catch (error) {
    if (error instanceof SandboxRefusal) return { reason: error.reason, remedy: error.remedy };
    throw error;
  }
}

function runtimeConfig(hosts: string[]): Parameters<Runtime['initialize']>[0] {
  return {
    network: { allowedDomains: hosts, deniedDomains: [], strictAllowlist: true },
    filesystem: { denyRead: [], allowWrite: [], denyWrite: [] },
    // Each wrap scans the process's cwd with ripgrep for files to protect (.bashrc, .git/hooks
    // of nested repositories…): that cwd is ralphtool's neutral folder, empty and never writable
    // (wrapOne), so the scan finds nothing and its ~6 ms start per attempt buys nothing. `true`
    // answers "no matches". The work tree's own protections are the policy's (sandbox-policy.ts).
    ripgrep: { command: 'true' },
  };
}

/** Why `--sandbox` cannot work here and what to do, in one line (exit 1). */
export class SandboxRefusal extends RuntimeError {
  constructor(
    readonly reason: string,
    readonly remedy: string,
  ) {
    super(`--sandbox cannot work here: ${reason}: ${remedy}`);
  }
}

function refusal(reason: string, remedy = INSTALL_REMEDY): SandboxRefusal {
  return new SandboxRefusal(reason, remedy);
}

async function setUp(hosts: readonly string[], env: NodeJS.ProcessEnv): Promise<Shared> {
  let runtime: Runtime;
  try {
    ({ SandboxManager: runtime } = await import('@anthropic-ai/sandbox-runtime'));
  } catch {
    throw refusal(
      'the package @anthropic-ai/sandbox-runtime is not installed beside ralphtool',
      'reinstall ralphtool with its dependencies, or run without --sandbox',
    );
  }
  if (process.platform !== 'linux')
    throw refusal(
      `ralphtool's sandbox runs on Linux only (this is ${process.platform})`,
      'run without --sandbox',
    );
  const missing = runtime.checkDependencies().errors;
  if (missing.length > 0) throw refusal(missing.join(', '));
  // The runtime stops its proxy on SIGINT and SIGTERM, and its handlers would keep Node from
  // exiting on them: ralphtool's own handlers decide, and release() stops the proxy at the end.
  const before = { SIGINT: process.listeners('SIGINT'), SIGTERM: process.listeners('SIGTERM') };
  try {
    // With its monitor: what it refuses is recorded (done() of each command).
    await runtime.initialize(runtimeConfig([...hosts]), undefined, true);
  } catch (error) {
    throw refusal(firstLine(error instanceof Error ? error.message : String(error)), USERNS_REMEDY);
  } finally {
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      for (const listener of process.listeners(signal)) {
        if (!before[signal].includes(listener)) process.removeListener(signal, listener);
      }
    }
  }
  const base = await mkdtemp(join(tmpdir(), 'ralphtool-sandbox-'));
  const neutral = join(base, 'cwd');
  await mkdir(neutral);
  const seen = new Map<string, Refused>();
  // The store keeps only the last hundred lines of all commands (most of them writes the
  // command's own policy allows): each is judged as it comes, by its command's policy.
  const stopWatching = runtime.getSandboxViolationStore().subscribe((violations) => {
    const last = violations.at(-1);
    const entry = last?.encodedCommand === undefined ? undefined : seen.get(last.encodedCommand);
    if (last === undefined || entry === undefined) return;
    if (isEndMark(last.line, entry.endMark)) {
      entry.ended = true;
      entry.onEnd?.();
      return;
    }
    const blocks = sandboxBlocksOf([last.line], entry.policy, isFolder);
    if (blocks.length > 0) entry.blocks = mergeBlocks(entry.blocks, blocks);
  });
  const s: Shared = {
    runtime,
    neutral,
    base,
    hosts: new Map(),
    users: 0,
    seen,
    removals: new Set(),
    stopWatching,
  };
  try {
    await probe(s, env);
  } catch (error) {
    stopWatching();
    await runtime.reset();
    await rm(base, { recursive: true, force: true });
    throw error;
  }
  return s;
}

/**
 * A wrapped `true` must run: the only way to see that user namespaces are refused (the runtime
 * sets up fine, and every command then fails in bwrap).
 */
async function probe(s: Shared, env: NodeJS.ProcessEnv): Promise<void> {
  const probeTree = await mkdtemp(join(s.base, 'probe-'));
  const command = await wrapOne(s, ['true'], probeTree, (tmp) => ({
    allowWrite: [probeTree, tmp],
    denyWrite: [],
    denyRead: [],
    allowedHosts: [],
  }));
  try {
    const result = await execProgram(command.program, command.args, {
      cwd: command.cwd,
      baseEnv: env,
      timeoutMs: 30_000,
      reject: false,
      maxBuffer: SHORT_ANSWER_MAX_BUFFER,
    });
    if (result.exitCode !== 0) {
      const why = firstLine(result.stderr) || `exit ${String(result.exitCode ?? result.signal)}`;
      throw refusal(`a sandboxed \`true\` failed (${why})`, USERNS_REMEDY);
    }
  } finally {
    await command.done();
  }
}

async function wrapOne(
  s: Shared,
  argv: readonly string[],
  workTree: string,
  policyFor: (tmpDir: string) => SandboxPolicy,
): Promise<WrappedCommand> {
  const tmpDir = await mkdtemp(join(s.base, 'tmp-'));
  const policy = policyFor(tmpDir);
  const customConfig = {
    network: { allowedDomains: policy.allowedHosts, deniedDomains: [], strictAllowlist: true },
    filesystem: {
      allowWrite: policy.allowWrite,
      denyWrite: policy.denyWrite,
      denyRead: policy.denyRead,
    },
  };
  // In the neutral folder, which no command may write: the attempt is refused, and reported.
  const endMark = join(s.neutral, `.end-${randomBytes(8).toString('hex')}`);
  const inner = innerCommand(workTree, tmpDir, argv, endMark);
  wraps += 1;
  const commandId = `ralphtool-${String(process.pid)}-${String(wraps)}`;
  const key = Buffer.from(commandId).toString('base64');
  // The runtime protects files relative to the process's cwd (and leaves stubs of missing ones
  // in it when that cwd is writable): it must be a folder no command may write. ralphtool reads
  // its own cwd once at start, so changing it around the wrap (one at a time) is safe.
  const run = wrapQueue.then(async () => {
    const cwd = process.cwd();
    process.chdir(s.neutral);
    try {
      return await s.runtime.wrapWithSandbox(inner, '/bin/bash', customConfig, undefined, {
        commandId,
      });
    } finally {
      process.chdir(cwd);
    }
  });
  wrapQueue = run.catch(() => undefined);
  const wrapped = await run;
  const uncontained = uncontainedReason(wrapped);
  if (uncontained !== null) {
    await rm(tmpDir, { recursive: true, force: true });
    throw refusal(uncontained, 'report this to ralphtool, and run without --sandbox meanwhile');
  }
  const refused: Refused = { policy, blocks: [], endMark, ended: false, onEnd: null };
  s.seen.set(key, refused);
  return {
    program: '/bin/bash',
    args: ['-c', wrapped],
    cwd: s.neutral,
    done: async () => {
      await drained(refused);
      s.seen.delete(key);
      s.runtime.cleanupAfterCommand();
      // Its removal does not hold the attempt's end up (a busy disk takes tens of ms): it goes
      // on beside the next attempt, each in a folder of its own, and release() waits for it.
      const removal = rm(tmpDir, { recursive: true, force: true }).catch(() => undefined);
      s.removals.add(removal);
      removal.then(
        () => s.removals.delete(removal),
        () => undefined,
      );
      return refused.blocks;
    },
  };
}

function isFolder(path: string): boolean {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Until the monitor passed on the command's end mark, which comes after all its lines on the
 * same stream (usually before its exit is seen: no wait at all). A command that did not reach
 * it (stopped, or never started) gets what the monitor reads in MONITOR_SETTLE_MS, as lines
 * written just before its end arrive a moment after it.
 */
async function drained(refused: Refused): Promise<void> {
  if (refused.ended) return;
  await new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, MONITOR_SETTLE_MS);
    refused.onEnd = () => {
      clearTimeout(timer);
      resolve();
    };
  });
  refused.onEnd = null;
}

/** How long the runtime's monitor is given for lines already on their way (a few event-loop turns). */
const MONITOR_SETTLE_MS = 100;

function firstLine(text: string): string {
  return (
    text
      .split('\n')
      .map((l) => l.trim())
      .find((l) => l !== '') ?? ''
  );
}
