import { readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import type { AccountEntry } from '../core/account-window.js';
import { LIMIT_KINDS } from '../core/events.js';
import { withFileLock } from './file-lock.js';
import { writeFileWhole } from './whole-file.js';

// An account's entry of the usage governor (core/account-window.ts), one small JSON file per
// account in the user's state folder: every ralphtool process of the user reads and writes it.
// Written whole (temp file + rename), readable by the user only; it names no secret (the key is
// a hash, agents/account-key.ts). An update is a read-modify-write under the file's lock
// (`<key>.json.lock`, checkpoint/file-lock.ts): two processes updating at once cannot lose
// what the other wrote (a limit).

const Runner = z.object({
  change: z.string(),
  pid: z.number().int(),
  host: z.string(),
  run: z.string().optional(),
});

const Entry = z.object({
  agent: z.string(),
  limit: z
    .object({
      until: z.string(),
      by: Runner,
      kind: z.enum(LIMIT_KINDS),
      source: z.string(),
      message: z.string(),
    })
    .nullable(),
  usage: z
    .object({
      percent: z.number().min(0),
      resetsAt: z.string(),
      window: z.string().nullable(),
      seenAt: z.string(),
      by: Runner,
    })
    .nullable(),
}) satisfies z.ZodType<AccountEntry>;

/**
 * The folder of the accounts' files: `$XDG_STATE_HOME/ralphtool/accounts`, else
 * `~/.local/state/ralphtool/accounts` (XDG's rule: a relative XDG_STATE_HOME is ignored).
 */
export function accountsFolder(env: NodeJS.ProcessEnv): string {
  const xdg = env.XDG_STATE_HOME;
  const stateHome =
    xdg !== undefined && path.isAbsolute(xdg)
      ? xdg
      : path.join(
          env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir(),
          '.local',
          'state',
        );
  return path.join(stateHome, 'ralphtool', 'accounts');
}

/** The file of the account `key` in `folder`. */
export function accountFile(folder: string, key: string): string {
  return path.join(folder, `${key}.json`);
}

/** The entry of the account; null when there is none, or it cannot be read or is not one. */
export async function readAccountEntry(file: string): Promise<AccountEntry | null> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    return null;
  }
  return parseAccountEntry(text);
}

/** An entry from its JSON text; null when it is not one. */
export function parseAccountEntry(text: string): AccountEntry | null {
  try {
    const parsed = Entry.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : null;
  } catch {
    return null;
  }
}

/** The JSON text of an entry (the file's, the remote's). */
export function accountText(entry: AccountEntry): string {
  return `${JSON.stringify(entry, null, 2)}\n`;
}

/** Writes the entry whole, mode 0600 (the folder is made when missing). */
export async function writeAccountEntry(file: string, entry: AccountEntry): Promise<void> {
  await writeFileWhole(file, accountText(entry), 0o600);
}

/**
 * Updates the entry as one step among the user's processes: under the file's lock, `change` is
 * given the entry as it is now (null when there is none or it is not one) and its result is
 * written whole. Returns what was written.
 */
export async function updateAccountEntry(
  file: string,
  change: (entry: AccountEntry | null) => AccountEntry,
): Promise<AccountEntry> {
  return withFileLock(`${file}.lock`, async () => {
    const next = change(await readAccountEntry(file));
    await writeAccountEntry(file, next);
    return next;
  });
}
