import { accountKey } from '../../agents/account-key.js';
import {
  accountFile,
  accountsFolder,
  readAccountEntry,
  type RunState,
} from '../../checkpoint/index.js';

/** What the usage governor knows of a run's account, as `status` shows it (only what holds now). */
export interface StatusAccount {
  /** The account's key (docs/contract.md, "One account, many runs"). */
  key: string;
  /** The window's last known utilisation, while its reset is ahead; null when none is known. */
  usage: { percent: number; resetsAt: string; window: string | null; seenAt: string } | null;
  /** A limit a run hit on the account and still in force, and which run hit it. */
  limit: { until: string; change: string; pid: number; host: string; message: string } | null;
}

/**
 * The account of a live or interrupted run's agent (its recorded intent), read from the user's
 * state folder as `env` places it; null for a finished run or when nothing current is known.
 */
export async function accountOf(
  state: RunState,
  env: NodeJS.ProcessEnv,
  now: number,
): Promise<StatusAccount | null> {
  const agent = state.attemptAgent?.agent ?? state.intent?.agent;
  if (state.status !== 'active' || agent === undefined) return null;
  const key = accountKey(agent, env);
  const entry = await readAccountEntry(accountFile(accountsFolder(env), key));
  if (entry === null) return null;
  const usage =
    entry.usage !== null && Date.parse(entry.usage.resetsAt) > now
      ? {
          percent: entry.usage.percent,
          resetsAt: entry.usage.resetsAt,
          window: entry.usage.window,
          seenAt: entry.usage.seenAt,
        }
      : null;
  const hit = entry.limit;
  const limit =
    hit !== null && Date.parse(hit.until) > now
      ? {
          until: hit.until,
          change: hit.by.change,
          pid: hit.by.pid,
          host: hit.by.host,
          message: hit.message,
        }
      : null;
  return usage === null && limit === null ? null : { key, usage, limit };
}
