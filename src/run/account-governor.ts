import { createHash } from 'node:crypto';
import { hostname } from 'node:os';
import { accountKey } from '../agents/account-key.js';
import type { AgentLimit } from '../agents/types.js';
import {
  accountFile,
  accountsFolder,
  readAccountEntry,
  updateAccountEntry,
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

/**
 * How old the remote's entry may be when an attempt starts (docs/contract.md, "One account, many
 * runs"): older, it is fetched again first. A run's own writes always fetch it afresh to merge.
 */
export const REMOTE_LOOK_MS = 30_000;

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

/** One account the run's agents use: its key and its file. */
interface AccountBook {
  key: string;
  file: string;
}

/**
 * One run's side of the usage governor (docs/contract.md, "One account, many runs"): what it
 * learns about each of its agents' accounts (the primary's, and each fallback's: every agent
 * kind is a login of its own) goes into that account's file (checkpoint/account-file.ts), which
 * every run of the user reads before an attempt (core/account-window.ts decides). An update is
 * a read-merge-write under the file's lock, one at a time in this run and among processes.
 */
export class AccountGovernor {
  readonly self: AccountRunner;
  private readonly books = new Map<string, AccountBook>();
  private pending: Promise<void> = Promise.resolve();
  private warned = false;
  /** Each account's remote entry as last fetched before an attempt, and when (the run's clock). */
  private readonly remoteSeen = new Map<string, { at: number; entry: AccountEntry | null }>();

  constructor(
    /** The run's own agent (`--agent`): the account of `gate`, `hitLimit` by default. */
    readonly agent: string,
    private readonly folder: string,
    private readonly env: NodeJS.ProcessEnv,
    change: string,
    /** The run's folder: its identity across the processes that go on with it. */
    runDir: string,
    readonly pauseAt: number | null,
    private readonly notice: (message: string) => void,
    /** A run that pushes: the entry is shared through its remote too. */
    private readonly shared: AccountShare | null = null,
  ) {
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

  /**
   * Whether a new attempt of `agent` (the run's own by default) may start now on its account
   * (what this run wrote is in the file first).
   */
  async gate(now: number, agent: string = this.agent): Promise<AccountGate> {
    await this.pending;
    const entry = await this.entry(this.book(agent), now);
    return decideAccountGate({ entry, self: this.self, pauseAt: this.pauseAt, now });
  }

  /**
   * The entry: the file's (read every time), with the remote's of a run that pushes — fetched
   * when the last look at this account is `REMOTE_LOOK_MS` old or older, else the one fetched
   * then: attempts seconds apart need not each pay a fetch to learn of limits that last minutes
   * to hours.
   */
  private async entry(book: AccountBook, now: number): Promise<AccountEntry | null> {
    const local = await readAccountEntry(book.file);
    if (this.shared === null) return local;
    const seen = this.remoteSeen.get(book.key);
    if (seen === undefined || now < seen.at || now - seen.at >= REMOTE_LOOK_MS) {
      this.remoteSeen.set(book.key, { at: now, entry: await this.shared.fetch(book.key) });
    }
    return mergeAccounts(local, this.remoteSeen.get(book.key)?.entry ?? null);
  }

  /** The agent `agent` of an attempt reported its window's utilisation at `now`. */
  sawUsage(agent: string, usage: SeenUsage, now: number): void {
    const seenAt = new Date(now).toISOString();
    this.update(agent, (entry) => withUsage(entry, { ...usage, seenAt, by: this.self }));
  }

  /**
   * This run hit `limit` on the account of `agent` (the run's own by default: a fallback agent's
   * is its own account) and it is limited until `until` (epoch ms).
   */
  async hitLimit(limit: AgentLimit, until: number, agent: string = this.agent): Promise<void> {
    const { kind, source, message } = limit;
    const hit = { until: new Date(until).toISOString(), by: this.self, kind, source, message };
    this.update(agent, (entry) => withLimit(entry, hit));
    await this.pending;
  }

  private book(agent: string): AccountBook {
    let book = this.books.get(agent);
    if (book === undefined) {
      const key = accountKey(agent, this.env);
      book = { key, file: accountFile(this.folder, key) };
      this.books.set(agent, book);
    }
    return book;
  }

  private update(agent: string, change: (entry: AccountEntry) => AccountEntry): void {
    const book = this.book(agent);
    this.pending = this.pending.then(async () => {
      try {
        // Under the file's lock: what another process wrote meanwhile is what `change` is given.
        const next = await updateAccountEntry(book.file, (entry) =>
          change(entry ?? EMPTY_ACCOUNT(agent)),
        );
        if (this.shared === null) return;
        // The remote's entry may know more (other machines): merged, then pushed.
        const remote = await this.shared.fetch(book.key);
        await this.shared.push(book.key, mergeAccounts(next, remote) ?? next);
      } catch (error) {
        // The governor is advice to other runs: this run goes on without it, said once.
        if (this.warned) return;
        this.warned = true;
        this.notice(`cannot share the account's usage window (${book.file}): ${messageOf(error)}`);
      }
    });
  }
}
