import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';

// What leaves the machine in a record never carries a secret of the environment ralphtool was
// given: an agent may repeat an API key it found (in a failure reason, a question, the learnings
// it writes), and the record goes to a remote others read. Values of variables whose names say
// they are secrets are replaced before the record is written.

/** Names of environment variables whose values are secrets. */
export const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION/i;
/** Shorter values are left: replacing `1` or `true` everywhere would garble the record. */
export const SECRET_MIN_LENGTH = 8;

export interface Secret {
  name: string;
  value: string;
}

/** The environment's secrets, longest first (a secret containing another is replaced whole). */
export function secretsOf(env: NodeJS.ProcessEnv): Secret[] {
  return Object.entries(env)
    .filter(
      (entry): entry is [string, string] =>
        SECRET_NAME.test(entry[0]) &&
        typeof entry[1] === 'string' &&
        entry[1].trim().length >= SECRET_MIN_LENGTH,
    )
    .map(([name, value]) => ({ name, value: value.trim() }))
    .sort((a, b) => b.value.length - a.value.length);
}

/** The text with every secret's value replaced by `[redacted $NAME]`. */
export function redact(text: string, secrets: readonly Secret[]): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret.value))
      out = out.split(secret.value).join(`[redacted $${secret.name}]`);
  }
  return out;
}

/**
 * The values of the dotenv files (`.env`, `.env.*`) at the top of the work tree: those files are
 * ignored and never committed, but an agent that read one may repeat a value in its words.
 * Every `NAME=value` whose value is long enough counts: a dotenv file is where secrets live.
 */
export async function dotenvSecrets(root: string): Promise<Secret[]> {
  const names = await readdir(root).catch(() => [] as string[]);
  const found: Secret[] = [];
  for (const name of names.filter((n) => n === '.env' || n.startsWith('.env.'))) {
    const text = await readFile(join(root, name), 'utf8').catch(() => '');
    for (const line of text.split('\n')) {
      const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*?)\s*$/.exec(line);
      const value = match?.[2]?.replace(/^(['"])(.*)\1$/, '$2') ?? '';
      if (match && value.length >= SECRET_MIN_LENGTH) found.push({ name: match[1] ?? name, value });
    }
  }
  return found;
}

/** Both kinds, longest first. */
export function allSecrets(...lists: readonly Secret[][]): Secret[] {
  return lists.flat().sort((a, b) => b.value.length - a.value.length);
}
