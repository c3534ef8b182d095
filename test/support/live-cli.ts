import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { CLI_PATH } from './cli.js';
import { refuseSpawnInContributorTier } from './tier-guard.js';
import { sleep } from './processes.js';

export type EventJson = { type: string; [key: string]: unknown };

/**
 * A ralphtool process the test controls: spawned without a shell so that SIGKILL hits
 * ralphtool itself, its NDJSON events parsed as they stream, its peak memory sampled.
 */
export class LiveCli {
  readonly child: ChildProcess;
  readonly events: EventJson[] = [];
  stderr = '';
  /** What it printed on stdout, as text (the tail): the plain output of a run without --json. */
  stdout = '';
  /** Highest VmHWM (peak resident set, kB) seen in /proc while it ran; 0 if never sampled. */
  peakRssKb = 0;
  /** Bytes of stdout that were not a JSON line (should stay 0 with --json). */
  junkBytes = 0;
  /** `agent.message` events seen (all of them, also when they are not kept). */
  messageCount = 0;
  /** Agent lines ralphtool reported as not shown (stdout backed up). */
  omittedCount = 0;
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  private buffer = '';
  private ended = false;
  private sampler: NodeJS.Timeout | null = null;

  constructor(
    args: readonly string[],
    cwd: string,
    env: Record<string, string | undefined>,
    /** False: count `agent.message` events without keeping them (for floods of output). */
    private readonly keepMessages = true,
  ) {
    refuseSpawnInContributorTier('ralphtool as a process');
    const full: Record<string, string> = {};
    for (const [key, value] of Object.entries({ ...process.env, NO_COLOR: '1', ...env })) {
      if (value !== undefined) full[key] = value;
    }
    delete full.FORCE_COLOR;
    this.child = spawn(process.execPath, [CLI_PATH, ...args], {
      cwd,
      env: full,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.setEncoding('utf8');
    this.child.stderr?.setEncoding('utf8');
    this.child.stdout?.on('data', (chunk: string) => this.onStdout(chunk));
    this.child.stderr?.on('data', (chunk: string) => {
      // Keep the tail only: a flooding run must not make the test itself huge.
      this.stderr = (this.stderr + chunk).slice(-200_000);
    });
    this.exited = new Promise((resolve) => {
      this.child.on('close', (code, signal) => {
        this.ended = true;
        this.stopSampling();
        resolve({ code, signal });
      });
    });
  }

  get pid(): number {
    const pid = this.child.pid;
    if (pid === undefined) throw new Error('ralphtool did not start');
    return pid;
  }

  /** Samples /proc/<pid>/status every `everyMs` until the process ends. */
  sampleMemory(everyMs = 100): void {
    const sample = (): void => {
      const kb = vmHwmKb(this.pid);
      if (kb !== null && kb > this.peakRssKb) this.peakRssKb = kb;
    };
    sample();
    this.sampler = setInterval(sample, everyMs);
  }

  /** Resolves with the first event matching `match`; fails if ralphtool ends first. */
  async waitFor(match: (event: EventJson) => boolean, timeoutMs = 90_000): Promise<EventJson> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.events.find(match);
      if (found) return found;
      if (this.ended) {
        throw new Error(`ralphtool ended before the awaited event; stderr:\n${this.stderr}`);
      }
      if (Date.now() > deadline)
        throw new Error(`the awaited event never came; stderr:\n${this.stderr}`);
      await sleep(20);
    }
  }

  /** Resolves once `check()` holds; fails if ralphtool ends first. */
  async waitUntil(check: () => boolean, timeoutMs = 90_000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!check()) {
      if (this.ended) throw new Error(`ralphtool ended first; stderr:\n${this.stderr}`);
      if (Date.now() > deadline)
        throw new Error(`the awaited condition never held; stderr:\n${this.stderr}`);
      await sleep(20);
    }
  }

  /** Sends a signal to ralphtool itself (Ctrl-C is SIGINT). */
  signal(signal: NodeJS.Signals): void {
    this.child.kill(signal);
  }

  /** kill -9 of ralphtool itself (not its agent, which runs in its own process group). */
  async kill9(): Promise<void> {
    this.child.kill('SIGKILL');
    await this.exited;
  }

  types(): string[] {
    return this.events.map((e) => e.type);
  }

  private onStdout(chunk: string): void {
    this.stdout = (this.stdout + chunk).slice(-200_000);
    this.buffer += chunk;
    const lines = this.buffer.split('\n');
    this.buffer = lines.pop() ?? '';
    for (const line of lines) {
      if (line.trim() === '') continue;
      try {
        const event = JSON.parse(line) as EventJson;
        if (event.type === 'agent.message') {
          // ralphtool drops agent lines while stdout is backed up and says how many.
          const omitted = /^\[ralphtool: (\d+) agent line\(s\) not shown/.exec(String(event.text));
          if (omitted) this.omittedCount += Number(omitted[1]);
          else this.messageCount++;
        }
        if (this.keepMessages || event.type !== 'agent.message') this.events.push(event);
      } catch {
        this.junkBytes += line.length;
      }
    }
    // A line longer than this is not an event ralphtool should print; do not grow without end.
    if (this.buffer.length > 50_000_000) {
      this.junkBytes += this.buffer.length;
      this.buffer = '';
    }
  }

  private stopSampling(): void {
    if (this.sampler) clearInterval(this.sampler);
    this.sampler = null;
  }
}

/** Peak resident set size of a live process in kB, from /proc; null when it is gone. */
export function vmHwmKb(pid: number): number | null {
  try {
    const match = /^VmHWM:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Number(match[1]) : null;
  } catch {
    return null;
  }
}
