import { git, type GitContext } from './git.js';

// Git verbs that talk to another repository (push, fetch, ls-remote), no policy. They never
// wait for a person: no terminal prompt, no credential dialog, ssh in batch mode.

/** The environment of every command that reaches a remote. */
export function remoteEnvironment(baseEnv: NodeJS.ProcessEnv): Record<string, string> {
  return {
    GIT_TERMINAL_PROMPT: '0',
    GCM_INTERACTIVE: 'never',
    // The user's own ssh command wins; otherwise ssh must fail rather than ask for a passphrase.
    ...(baseEnv.GIT_SSH_COMMAND === undefined && baseEnv.GIT_SSH === undefined
      ? { GIT_SSH_COMMAND: 'ssh -o BatchMode=yes' }
      : {}),
  };
}

/** A context for remote verbs: the repository's, with its own time limit and no prompts. */
export function remoteContext(ctx: GitContext, timeoutMs: number): GitContext {
  return { ...ctx, timeoutMs, env: { ...ctx.env, ...remoteEnvironment(ctx.baseEnv) } };
}

/** One ref update of a push: `<src>:<dst>`, forced with `+`, or a deletion when src is empty. */
export interface PushUpdate {
  src: string;
  dst: string;
  force?: boolean;
  /**
   * Compare-and-swap on the remote: the push of this ref succeeds only if the remote's ref is
   * at this commit now; the empty string means "only if it does not exist yet".
   */
  expect?: string;
}

/** How one ref of a push ended, from `git push --porcelain`. */
export interface PushedRef {
  dst: string;
  /** `=` up to date, ` ` fast-forward, `+` forced, `-` deleted, `*` new, `!` rejected. */
  flag: string;
  summary: string;
}

export interface PushResult {
  ok: boolean;
  refs: PushedRef[];
  /** git's own words when the push failed (the first lines of stderr). */
  message: string;
}

/**
 * `git push --porcelain --atomic` of these updates: all are applied or none. A refusal (a
 * lease that does not hold, an unreachable remote) is returned, not thrown; timeouts and
 * stops still throw.
 */
export async function pushRefs(
  ctx: GitContext,
  remote: string,
  updates: readonly PushUpdate[],
): Promise<PushResult> {
  const leases = updates
    .filter((u) => u.expect !== undefined)
    .map((u) => `--force-with-lease=${u.dst}:${u.expect ?? ''}`);
  // A leased ref is forced by its lease alone: a `+` on its refspec would override the lease
  // (git pushes it whatever the remote has), which is exactly what a lease is there to prevent.
  const specs = updates.map(
    (u) => `${u.force === true && u.expect === undefined ? '+' : ''}${u.src}:${u.dst}`,
  );
  // No `--quiet`: it silences the porcelain lines of a push that went through, and the refs it
  // changed are what `remote.pushed` counts.
  const result = await git(
    ctx,
    ['push', '--porcelain', '--atomic', '--no-verify', ...leases, '--', remote, ...specs],
    { allowFailure: true },
  );
  const refs = parsePorcelain(result.stdout);
  const ok = result.exitCode === 0 && refs.every((r) => r.flag !== '!');
  return { ok, refs, message: ok ? '' : failureWords(result.stderr, refs) };
}

/** `git ls-remote <remote> <patterns>`: ref name → commit; null when the remote cannot be read. */
export async function listRemoteRefs(
  ctx: GitContext,
  remote: string,
  patterns: readonly string[],
): Promise<{ refs: Map<string, string> } | { error: string }> {
  const result = await git(ctx, ['ls-remote', '--', remote, ...patterns], { allowFailure: true });
  if (result.exitCode !== 0) return { error: firstLines(result.stderr) || 'git ls-remote failed' };
  const refs = new Map<string, string>();
  for (const line of result.stdout.split('\n')) {
    const [sha, name] = line.split('\t');
    if (sha && name) refs.set(name, sha);
  }
  return { refs };
}

/**
 * `git fetch` of these refspecs (no tags, no remote-tracking updates beyond them); the error
 * words when it failed.
 */
export async function fetchRefs(
  ctx: GitContext,
  remote: string,
  refspecs: readonly string[],
): Promise<{ ok: true } | { ok: false; error: string }> {
  const result = await git(
    ctx,
    ['fetch', '--quiet', '--no-tags', '--no-write-fetch-head', '--', remote, ...refspecs],
    { allowFailure: true },
  );
  if (result.exitCode === 0) return { ok: true };
  return { ok: false, error: firstLines(result.stderr) || 'git fetch failed' };
}

function parsePorcelain(stdout: string): PushedRef[] {
  const refs: PushedRef[] = [];
  for (const line of stdout.split('\n')) {
    // "<flag>\t<from>:<to>\t<summary>"; the "To <url>" and "Done" lines have no tab.
    const [flag, spec, summary] = line.split('\t');
    if (flag === undefined || spec === undefined || flag.length !== 1) continue;
    const dst = spec.slice(spec.lastIndexOf(':') + 1);
    refs.push({ dst, flag, summary: summary ?? '' });
  }
  return refs;
}

function failureWords(stderr: string, refs: readonly PushedRef[]): string {
  const rejected = refs.find((r) => r.flag === '!');
  if (rejected) return `${rejected.dst} rejected (${rejected.summary.replace(/^\[|\]$/g, '')})`;
  return firstLines(stderr) || 'git push failed';
}

/** The meaningful first line of git's stderr, without its "fatal: " / "error: " prefix. */
function firstLines(stderr: string): string {
  const line = stderr
    .split('\n')
    .map((l) => l.trim())
    .find((l) => l !== '' && !l.startsWith('hint:'));
  return (line ?? '').replace(/^(fatal|error): /, '');
}
