// The one redactor (docs/contract.md, "What stays on the machine"): every text that leaves the
// machine or goes to a program or a URL the user named — the pushed record, notifications — goes
// through it. It knows the values ralphtool can see are secret (the environment's variables
// named like secrets, the dotenv files' values, the password of any URL in either) and the
// common token shapes, wherever they stand. Pure: the callers read the environment and files.

/** Names of variables whose values are secrets. */
export const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PASSWD|CREDENTIAL|AUTH|COOKIE|SESSION/i;
/** Shorter values are left: replacing `1` or `true` everywhere would garble the text. */
export const SECRET_MIN_LENGTH = 8;

export interface Secret {
  /** What the replacement names: the variable (`$GH_TOKEN`), or where the value was found. */
  name: string;
  value: string;
}

/**
 * Token shapes that are secret wherever they appear, whoever wrote them: GitHub, Anthropic,
 * OpenAI, Google, Slack, AWS access key ids, npm, and a JWT.
 */
const TOKEN_SHAPES: readonly (readonly [string, RegExp])[] = [
  ['a GitHub token', /\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b/g],
  ['an Anthropic key', /\bsk-ant-[A-Za-z0-9_-]{20,}/g],
  ['an OpenAI key', /\bsk-(?:proj-)?[A-Za-z0-9_-]{32,}/g],
  ['a Google API key', /\bAIza[0-9A-Za-z_-]{35}\b/g],
  ['a Slack token', /\bxox[abposr]-[A-Za-z0-9-]{10,}/g],
  ['an AWS access key id', /\b(?:AKIA|ASIA)[0-9A-Z]{16}\b/g],
  ['an npm token', /\bnpm_[A-Za-z0-9]{36}\b/g],
  ['a JWT', /\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}/g],
];

/** `scheme://user:password@host`: the password part. */
const URL_CREDENTIALS = /\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*:)([^\s@/]+)@/gi;

/** The secrets of an environment, longest first (a secret holding another is replaced whole). */
export function secretsOf(env: Readonly<Record<string, string | undefined>>): Secret[] {
  const found: Secret[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (typeof value !== 'string') continue;
    found.push(...secretsOfValue(name, value));
  }
  return longestFirst(found);
}

/**
 * The values of a dotenv file's text (`NAME=value`, `export NAME="value" # note`): every value
 * long enough counts, whatever its name — a dotenv file is where secrets live.
 */
export function dotenvSecretsOf(text: string, file: string): Secret[] {
  const found: Secret[] = [];
  for (const line of text.split(/\r?\n/)) {
    const match = /^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_.]*)\s*=\s*(.*)$/.exec(line);
    if (!match) continue;
    const name = match[1] ?? file;
    const value = dotenvValue(match[2] ?? '');
    if (value.length >= SECRET_MIN_LENGTH) found.push({ name, value });
    for (const password of urlPasswords(value))
      found.push({ name: `${name} password`, value: password });
  }
  return longestFirst(found);
}

/** Every list together, longest first. */
export function allSecrets(...lists: readonly (readonly Secret[])[]): Secret[] {
  return longestFirst(lists.flat());
}

/**
 * The text with every secret's value replaced by `[redacted $NAME]`, every token shape by
 * `[redacted: a GitHub token]` and the password of every URL by `[redacted]`.
 */
export function redact(text: string, secrets: readonly Secret[]): string {
  let out = text;
  for (const secret of secrets) {
    if (out.includes(secret.value))
      out = out.split(secret.value).join(`[redacted $${secret.name}]`);
  }
  for (const [what, shape] of TOKEN_SHAPES) out = out.replace(shape, `[redacted: ${what}]`);
  return out.replace(URL_CREDENTIALS, (_match, before: string) => `${before}[redacted]@`);
}

function secretsOfValue(name: string, raw: string): Secret[] {
  const value = raw.trim();
  const found: Secret[] = [];
  if (SECRET_NAME.test(name) && value.length >= SECRET_MIN_LENGTH) found.push({ name, value });
  // DATABASE_URL=postgres://app:hunter2-long@db/app: the name says nothing, the URL does.
  for (const password of urlPasswords(value))
    found.push({ name: `${name} password`, value: password });
  return found;
}

/** The passwords of the URLs in a value; short ones too (a URL's password is never noise). */
function urlPasswords(value: string): string[] {
  return [...value.matchAll(URL_CREDENTIALS)]
    .map((m) => m[2] ?? '')
    .filter((password) => password.length >= 3);
}

/** A dotenv value as the program reading the file sees it: quotes taken off, a comment cut. */
function dotenvValue(raw: string): string {
  const text = raw.trim();
  const quote = text[0];
  if (quote === '"' || quote === "'" || quote === '`') {
    const end = text.indexOf(quote, 1);
    return end > 0 ? text.slice(1, end) : text.slice(1);
  }
  const comment = /\s#/.exec(text);
  return (comment ? text.slice(0, comment.index) : text).trim();
}

function longestFirst(secrets: readonly Secret[]): Secret[] {
  return [...secrets].sort((a, b) => b.value.length - a.value.length);
}

/**
 * The first secret of `secrets` whose name says secret (a token, a key, a password: not any
 * dotenv value, a host name is no secret) and whose value `text` holds; null when none. Token
 * shapes are left out on purpose: code and tests hold made-up ones.
 */
export function secretWrittenIn(text: string, secrets: readonly Secret[]): Secret | null {
  for (const secret of secrets) {
    if (SECRET_NAME.test(secret.name) && text.includes(secret.value)) return secret;
  }
  return null;
}

/** Every string in a JSON value, redacted (before it is serialised: a quote stays a quote). */
export function redactStrings(value: unknown, secrets: readonly Secret[]): unknown {
  if (typeof value === 'string') return redact(value, secrets);
  if (Array.isArray(value)) return value.map((item) => redactStrings(item, secrets));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value).map(([key, item]) => [key, redactStrings(item, secrets)]),
    );
  }
  return value;
}
