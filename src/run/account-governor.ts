import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { accountKey } from '../agents/account-key.js';
import type { AgentLimit } from '../agents/types.js';
import {
  accountFile,
  accountsFolder,
  readAccountEntry,
  writeAccountEntry,
} from '../checkpoint/index.js';
import {
  EMPTY_ACCOUNT,
  decideAccountGate,
  mergeAccounts,
  withLimit,
  withUsage,
  type AccountEntry,
  type AccountGate,
  type AccountRunner,
} from '../core/account-window.js';
import { messageOf } from '../core/error-details.js';
import type { RunOptions } from './options.js';

/** The account's entry shared through the push remote (run/remote/remote-session.ts). */
export interface AccountShare {
  /** The remote's entry; null when there is none or it cannot be read. */
  fetch(key: string): Promise<AccountEntry | null>;
  /** Replaces the remote's entry (the caller merged it first). */
  push(key: string, entry: AccountEntry): Promise<void>;
}

/** A utilisation the agent reported (AgentEvent `usage`). */
export interface SeenUsage {
  percent: number;
  resetsAt: string;
  window: string | null;
}

/**
 * One run's side of the usage governor (docs/contract.md, "One account, many runs"): what it
 * learns about its agent's account goes into the account's file (checkpoint/account-file.ts),
 * which every run of the user reads before an attempt (core/account-window.ts decides). Writes
 * are read-modify-write, one at a time in this run; between processes the last write wins.
 */
export class AccountGovernor {
  readonly key: string;
  readonly file: string;
  readonly self: AccountRunner;
  private pending: Promise<void> = Promise.resolve();
  private warned = false;

  constructor(
    readonly agent: string,
    folder: string,
    env: NodeJS.ProcessEnv,
    change: string,
    /** The run's folder: its identity across the processes that go on with it. */
    runDir: string,
    readonly pauseAt: number | null,
    private readonly notice: (message: string) => void,
    /** A run that pushes: the entry is shared through its remote too. */
    private readonly shared: AccountShare | null = null,
  ) {
    this.key = accountKey(agent, env);
    this.file = accountFile(folder, this.key);
    const run = createHash('sha256').update(runDir).digest('hex').slice(0, 12);
    this.self = { change, pid: process.pid, host: hostname(), run };
  }

  /** The governor of a run with `options`, its agents inheriting `env`. */
  static of(
    options: Pick<RunOptions, 'agent' | 'pauseAt'>,
    env: NodeJS.ProcessEnv,
    run: { change: string; dir: string },
    notice: (message: string) => void,
    shared: AccountShare | null = null,
  ): AccountGovernor {
    return new AccountGovernor(
      options.agent,
      accountsFolder(env),
      env,
      run.change,
      run.dir,
      options.pauseAt,
      notice,
      shared,
    );
  }

  /** Whether a new attempt may start now (what this run wrote is in the file first). */
  async gate(now: number): Promise<AccountGate> {
    await this.pending;
    const entry = await this.entry();
    return decideAccountGate({ entry, self: this.self, pauseAt: this.pauseAt, now });
  }

  /** The entry: the file's, with the remote's of a run that pushes (fetched now). */
  private async entry(): Promise<AccountEntry | null> {
    const local = await readAccountEntry(this.file);
    const remote = this.shared === null ? null : await this.shared.fetch(this.key);
    return mergeAccounts(local, remote);
  }

  /** The agent `agent` of an attempt reported its window's utilisation at `now`. */
  sawUsage(agent: string, usage: SeenUsage, now: number): void {
    if (agent !== this.agent) return;
    const seenAt = new Date(now).toISOString();
    this.update((entry) => withUsage(entry, { ...usage, seenAt, by: this.self }));
  }

  /** This run hit `limit` on the account and waits until `until` (epoch ms). */
  async hitLimit(limit: AgentLimit, until: number): Promise<void> {
    const { kind, source, message } = limit;
    const hit = { until: new Date(until).toISOString(), by: this.self, kind, source, message };
    this.update((entry) => withLimit(entry, hit));
    await this.pending;
  }

  private update(change: (entry: AccountEntry) => AccountEntry): void {
    this.pending = this.pending.then(async () => {
      try {
        const entry = (await readAccountEntry(this.file)) ?? EMPTY_ACCOUNT(this.agent);
        const next = change(entry);
        await writeAccountEntry(this.file, next);
        if (this.shared === null) return;
        // The remote's entry may know more (other machines): merged, then pushed.
        const remote = await this.shared.fetch(this.key);
        await this.shared.push(this.key, mergeAccounts(next, remote) ?? next);
      } catch (error) {
        // The governor is advice to other runs: this run goes on without it, said once.
        if (this.warned) return;
        this.warned = true;
        this.notice(`cannot share the account's usage window (${this.file}): ${messageOf(error)}`);
      }
    });
  }
}
