// What an agent may do inside `--sandbox` (docs/sandbox.md): the files it may write, the
// credential stores it may not read, the hosts it may reach. Pure: the process layer
// (process/sandbox.ts) hands the policy to the sandbox runtime and checks what it returns.

import { shellWord } from './shell-word.js';

/** The agents a policy is built for (the same names as `--agent`). */
export type SandboxAgent = 'claude' | 'codex' | 'opencode' | 'gemini' | 'command';

/** Where the sandboxed command lives: all paths absolute. */
export interface SandboxPlace {
  /** The user's home folder (`$HOME`). */
  home: string;
  /** The run's work tree: where the agent works, and writes. */
  workTree: string;
  /** The work tree's git directory and the one all its worktrees share (they may be the same). */
  gitDir: string;
  gitCommonDir: string;
  /** The attempt's private temporary folder (the agent's `TMPDIR`). */
  tmpDir: string;
}

/** The policy given to the sandbox runtime, and summarised in the run's record. */
export interface SandboxPolicy {
  allowWrite: string[];
  /** Inside `allowWrite`, still read-only: git's hooks and config, ralphtool's own record. */
  denyWrite: string[];
  denyRead: string[];
  /** Host names (`host`, `*.domain`, `host:port`) the agent's network may reach; nothing else. */
  allowedHosts: string[];
}

/** Each agent's own state and config folders under HOME (relative), which it writes. */
const AGENT_STATE: Readonly<Record<SandboxAgent, readonly string[]>> = {
  claude: ['.claude', '.claude.json', '.claude.json.backup', '.claude.json.lock'],
  codex: ['.codex'],
  gemini: ['.gemini'],
  opencode: [
    '.local/share/opencode',
    '.local/state/opencode',
    '.cache/opencode',
    '.config/opencode',
  ],
  command: [],
};

/** The environment variables that move an agent's state folder elsewhere. */
const STATE_VARIABLES: Readonly<Record<SandboxAgent, readonly string[]>> = {
  claude: ['CLAUDE_CONFIG_DIR'],
  codex: ['CODEX_HOME'],
  gemini: ['GEMINI_CLI_HOME'],
  opencode: [],
  command: [],
};

/** The XDG folders OpenCode keeps its state in, when they are moved from HOME. */
const OPENCODE_XDG: readonly [string, string][] = [
  ['XDG_DATA_HOME', 'opencode'],
  ['XDG_STATE_HOME', 'opencode'],
  ['XDG_CACHE_HOME', 'opencode'],
  ['XDG_CONFIG_HOME', 'opencode'],
];

/** The hosts of each agent's API and login (the vendor's own), reachable by that agent only. */
export const AGENT_HOSTS: Readonly<Record<SandboxAgent, readonly string[]>> = {
  claude: ['api.anthropic.com', 'console.anthropic.com', 'claude.ai', 'statsig.anthropic.com'],
  codex: ['api.openai.com', 'auth.openai.com', 'chatgpt.com'],
  gemini: [
    'generativelanguage.googleapis.com',
    'cloudcode-pa.googleapis.com',
    'oauth2.googleapis.com',
    'play.googleapis.com',
  ],
  opencode: ['api.anthropic.com', 'api.openai.com', 'opencode.ai', 'models.dev'],
  command: [],
};

/** The variables that point an agent at another API server (a proxy, a gateway, a test server). */
const BASE_URL_VARIABLES: Readonly<Record<SandboxAgent, readonly string[]>> = {
  claude: ['ANTHROPIC_BASE_URL'],
  codex: ['OPENAI_BASE_URL'],
  gemini: ['GOOGLE_GEMINI_BASE_URL', 'GOOGLE_VERTEX_BASE_URL'],
  opencode: ['ANTHROPIC_BASE_URL', 'OPENAI_BASE_URL'],
  command: [],
};

/**
 * Credential stores no agent reads (relative to HOME): keys, cloud and forge logins, package
 * registry tokens, keyrings. The other agents' logins are added per agent (otherAgentsState).
 * Extendable with the `sandbox-deny-read` setting.
 */
export const CREDENTIAL_STORES: readonly string[] = [
  '.ssh',
  '.gnupg',
  '.aws',
  '.azure',
  '.config/gcloud',
  '.kube',
  '.docker/config.json',
  '.config/gh',
  '.config/hub',
  '.config/glab-cli',
  '.git-credentials',
  '.config/git/credentials',
  '.netrc',
  '.npmrc',
  '.yarnrc.yml',
  '.pypirc',
  '.cargo/credentials.toml',
  '.gem/credentials',
  '.terraform.d/credentials.tfrc.json',
  '.local/share/keyrings',
  '.password-store',
];

/** The credential stores as absolute paths, for `doctor` and the docs. */
export function credentialStores(home: string): string[] {
  return CREDENTIAL_STORES.map((p) => `${home}/${p}`);
}

/**
 * The folders among the agent's state (absolute): made before its sandbox starts, since a
 * writable path must exist to be bound writable (OpenCode makes `~/.local/share/opencode` itself,
 * and inside it would find `~/.local` read-only).
 */
export function agentStateFolders(
  agent: SandboxAgent,
  home: string,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  return agentStatePaths(agent, home, env).filter((p) => !/\.(json|backup|lock)$/.test(p));
}

/** The agent's own state folders (absolute). */
export function agentStatePaths(
  agent: SandboxAgent,
  home: string,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const paths = AGENT_STATE[agent].map((p) => `${home}/${p}`);
  for (const name of STATE_VARIABLES[agent]) {
    const dir = env[name];
    if (dir !== undefined && dir.startsWith('/')) paths.push(dir);
  }
  if (agent === 'opencode') {
    for (const [name, sub] of OPENCODE_XDG) {
      const dir = env[name];
      if (dir !== undefined && dir.startsWith('/')) paths.push(`${dir}/${sub}`);
    }
  }
  return paths;
}

/**
 * The agent's own config files that may name an API server of the user's (a provider of Codex's
 * `config.toml`, of OpenCode's `opencode.json`): read once when the run opens its sandbox, and
 * read-only inside it, so that an agent cannot add a host for its next attempt by writing one.
 */
export function agentConfigFiles(
  agent: SandboxAgent,
  home: string,
  env: Readonly<Record<string, string | undefined>>,
): string[] {
  const absolute = (value: string | undefined): string | null =>
    value !== undefined && value.startsWith('/') ? value : null;
  if (agent === 'codex') return [`${absolute(env.CODEX_HOME) ?? `${home}/.codex`}/config.toml`];
  if (agent === 'opencode') {
    const dir = `${absolute(env.XDG_CONFIG_HOME) ?? `${home}/.config`}/opencode`;
    return [`${dir}/opencode.json`, `${dir}/opencode.jsonc`, `${dir}/config.json`];
  }
  return [];
}

/**
 * The hosts of the API servers a config file's text names: every `base_url` (TOML) or `baseURL`
 * (JSON) whose value is an http(s) URL, with its port (`127.0.0.1:8080`).
 */
export function configuredHosts(text: string): string[] {
  const hosts: string[] = [];
  for (const m of text.matchAll(/(?:\bbase_url|"baseURL")\s*[=:]\s*["']([^"']+)["']/g)) {
    const value = m[1] ?? '';
    if (!/^https?:\/\//i.test(value)) continue;
    const host = urlHost(value);
    if (host !== null) hosts.push(host);
  }
  return unique(hosts);
}

/**
 * The hosts an agent may reach: its vendor's, the host of a base URL variable pointing it
 * elsewhere (with its port: `127.0.0.1:41234`), and the user's `--allow-host` ones.
 */
export function allowedHosts(
  agent: SandboxAgent,
  env: Readonly<Record<string, string | undefined>>,
  extra: readonly string[],
): string[] {
  const hosts = [...AGENT_HOSTS[agent]];
  for (const name of BASE_URL_VARIABLES[agent]) {
    const host = urlHost(env[name]);
    if (host !== null) hosts.push(host);
  }
  return unique([...hosts, ...extra]);
}

/** `http://127.0.0.1:8080/v1` → `127.0.0.1:8080`; https without a port → the host alone. */
function urlHost(value: string | undefined): string | null {
  if (value === undefined || value === '') return null;
  try {
    const url = new URL(value);
    if (url.hostname === '') return null;
    return url.port === '' ? url.hostname : `${url.hostname}:${url.port}`;
  } catch {
    return null;
  }
}

/** The policy of one agent process (docs/sandbox.md has the table). */
export function sandboxPolicy(input: {
  agent: SandboxAgent;
  place: SandboxPlace;
  env: Readonly<Record<string, string | undefined>>;
  allowHosts: readonly string[];
  /** The `sandbox-deny-read` setting: more paths (absolute, or `~/…`) no agent reads. */
  extraDenyRead: readonly string[];
  /** The hosts the agent's own config files name (agentConfigFiles, read when the run opened). */
  configHosts?: readonly string[];
}): SandboxPolicy {
  const { agent, place, env } = input;
  const own = agentStatePaths(agent, place.home, env);
  const others = (Object.keys(AGENT_STATE) as SandboxAgent[])
    .filter((a) => a !== agent)
    .flatMap((a) => agentStatePaths(a, place.home, env))
    .filter((p) => !own.some((mine) => p === mine || p.startsWith(`${mine}/`)));
  const gitDirs = unique([place.gitDir, place.gitCommonDir]);
  return {
    allowWrite: unique([place.workTree, ...gitDirs, ...own, place.tmpDir]),
    denyWrite: unique([
      `${place.gitCommonDir}/hooks`,
      `${place.gitCommonDir}/config`,
      ...(place.gitDir !== place.gitCommonDir ? [`${place.gitDir}/config.worktree`] : []),
      `${place.gitCommonDir}/ralphtool`,
      ...agentConfigFiles(agent, place.home, env),
    ]),
    denyRead: unique([
      ...credentialStores(place.home),
      ...others,
      ...input.extraDenyRead.map((p) => (p.startsWith('~/') ? `${place.home}/${p.slice(2)}` : p)),
    ]),
    allowedHosts: allowedHosts(agent, env, [...(input.configHosts ?? []), ...input.allowHosts]),
  };
}

/**
 * The command run inside the sandbox: in the work tree, with the private TMPDIR, the proxy used
 * for loopback too (the runtime's NO_PROXY would send a loopback API server around the proxy,
 * where nothing answers), then the agent itself. Every word quoted. With `endMark` (a path no
 * command may write), the shell stays the agent's parent and, once the agent ended, tries to
 * write `endMark`: the runtime's monitor reports that attempt after every one of the agent's on
 * the same stream, so its arrival says the monitor holds all of them (process/sandbox.ts). The
 * agent's exit status is the command's.
 */
export function innerCommand(
  workTree: string,
  tmpDir: string,
  argv: readonly string[],
  endMark?: string,
): string {
  const cd = `cd ${shellWord(workTree)}`;
  const env = `export TMPDIR=${shellWord(tmpDir)} NO_PROXY= no_proxy=`;
  const agent = argv.map(shellWord).join(' ');
  if (endMark === undefined) return `${cd} && ${env} && exec ${agent}`;
  return `${cd} && ${env} && ${agent}; rc=$?; { : >${shellWord(endMark)}; } 2>/dev/null; exit $rc`;
}

/**
 * The runtime's form for a policy too long for one argument (past about 124 KB: hundreds of
 * long `sandbox-deny-read` paths): a `/bin/sh` that opens the file holding bwrap's mount words on
 * fd 9 (a file of the runtime's process, /proc/<pid>/fd/<n>) and execs bwrap, which reads them
 * through `--args 9`. Nothing but that exact prefix is taken for it.
 */
const BWRAP_ARGS_FILE =
  /^\/bin\/sh -c 'exec 9<"\$1" && shift && exec "\$@"' srt-args \/proc\/\d+\/fd\/\d+ bwrap (?:.* )?--args 9 /;

/**
 * Why a command the runtime returned is not contained, or null when it is: it must start
 * bubblewrap (itself, or through the runtime's args-file shell) and cut the network. The
 * runtime returns the command unchanged, or without `--unshare-net`, when it was not set up:
 * that must never run.
 */
export function uncontainedReason(wrapped: string): string | null {
  if (!wrapped.startsWith('bwrap ') && !BWRAP_ARGS_FILE.test(wrapped)) {
    return 'the sandbox runtime did not wrap the command in bwrap';
  }
  if (!/\s--unshare-net\s/.test(wrapped)) return 'the sandbox runtime left the network open';
  return null;
}

/**
 * A `--allow-host` value: a host name (`registry.npmjs.org`), a wildcard domain
 * (`*.example.com`), an IPv4 address, a bracketed IPv6 one, each with an optional `:port`.
 * Returns null when it is one; else what is wrong.
 */
export function allowHostProblem(value: string): string | null {
  const m = /^(\*\.)?([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(:(\d{1,5}))?$/.exec(
    value,
  );
  if (m === null) {
    return `${JSON.stringify(value)} is not a host (e.g. registry.npmjs.org, *.example.com, 127.0.0.1:8080)`;
  }
  const port = m[5] === undefined ? null : Number(m[5]);
  if (port !== null && (port < 1 || port > 65535)) {
    return `${JSON.stringify(value)} has a port outside 1–65535`;
  }
  return null;
}

/** One line saying what the sandbox allows, for `run.started`, `status` and the report. */
export function policySummary(policy: Pick<SandboxPolicy, 'allowedHosts'>): string {
  const hosts = policy.allowedHosts.length === 0 ? 'none' : policy.allowedHosts.join(', ');
  return `writes: work tree, git dir, agent state, private tmp; credential stores unreadable; network: ${hosts}`;
}

function unique(items: readonly string[]): string[] {
  return [...new Set(items)];
}
