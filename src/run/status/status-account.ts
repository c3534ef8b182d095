import { accountKey } from '../../agents/account-key.js';
import {
  accountFile,
  accountsFolder,
  readAccountEntry,
  type RunState,
} from '../../checkpoint/index.js';
import { accountWindowOf, type AccountWindow } from '../../core/account-window.js';

/** What the usage governor knows of a run's account, as `status` shows it (only what holds now). */
export type StatusAccount = AccountWindow;

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
  const [window] = await accountWindows([agent], env, now);
  return window ?? null;
}

/**
 * The accounts of `agents` (each agent kind's login as `env` places it, each account once) with
 * what holds of their windows now; an account nothing current is known of is left out. The
 * dashboard reads them while its runs go on (cli/ui-controller.ts).
 */
export async function accountWindows(
  agents: readonly string[],
  env: NodeJS.ProcessEnv,
  now: number,
): Promise<AccountWindow[]> {
  const keys = [...new Set(agents.map((agent) => accountKey(agent, env)))];
  const folder = accountsFolder(env);
  const windows = await Promise.all(
    keys.map(async (key) =>
      accountWindowOf(key, await readAccountEntry(accountFile(folder, key)), now),
    ),
  );
  return windows.filter((window): window is AccountWindow => window !== null);
}
