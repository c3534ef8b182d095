import { existsSync } from 'node:fs';
import { mkdir, readFile } from 'node:fs/promises';
import { homedir } from 'node:os';
import type { AgentBackend, AgentSandbox } from '../agents/index.js';
import {
  agentConfigFiles,
  agentStateFolders,
  allowedHosts,
  configuredHosts,
  policySummary,
  sandboxPolicy,
  type SandboxAgent,
  type SandboxPolicy,
} from '../core/sandbox-policy.js';
import { locateRepo, type RepoLocation } from '../git/repo.js';
import { openSandbox, type SandboxSession } from '../process/sandbox.js';
import { AGENT_KINDS, type AgentKind, type RunOptions } from './options.js';

/** A run's sandbox while it is open (`--sandbox`): its agents' backends started through it. */
export interface RunSandbox {
  /** The backend with each attempt's agent contained by the policy of its kind. */
  contain(backend: AgentBackend): AgentBackend;
  /** What `run.started` and the record say of it. */
  summary: string;
  hosts: string[];
  release(): Promise<void>;
}

/** The agents a run may start: its own, its fallbacks and its reviewer. */
function runAgents(options: RunOptions): AgentKind[] {
  const reviewer = AGENT_KINDS.find((kind) => kind === options.review);
  return [
    options.agent,
    ...(options.fallbacks ?? []).map((f) => f.agent),
    ...(reviewer === undefined ? [] : [reviewer]),
  ];
}

/**
 * Opens the sandbox of a run, or refuses (one line, exit 1) before anything changed when it
 * cannot work here (process/sandbox.ts). Null when the run is not sandboxed.
 */
export async function openRunSandbox(
  options: RunOptions,
  env: NodeJS.ProcessEnv,
): Promise<RunSandbox | null> {
  if (!options.sandbox) return null;
  const home = env.HOME ?? homedir();
  // Read now, before any agent of this run: inside, the files are read-only.
  const configHosts = new Map<string, string[]>();
  for (const agent of new Set(runAgents(options))) {
    configHosts.set(agent, await hostsOfConfig(agentConfigFiles(agent, home, env)));
  }
  const hosts = [
    ...new Set(
      runAgents(options).flatMap((a) =>
        allowedHosts(a, env, [...(configHosts.get(a) ?? []), ...options.allowHosts]),
      ),
    ),
  ];
  const session = await openSandbox(hosts, env);
  const repos = new Map<string, Promise<RepoLocation | null>>();
  return {
    contain: (backend) => ({
      name: backend.name,
      runAttempt: (request) =>
        backend.runAttempt({
          ...request,
          sandbox: agentSandbox(session, backend.name as SandboxAgent, {
            home,
            env,
            options,
            configHosts: configHosts.get(backend.name) ?? [],
            repo: (cwd) => {
              let found = repos.get(cwd);
              if (found === undefined) {
                found = locateRepo({ cwd, timeoutMs: options.commandTimeoutMs, baseEnv: env });
                repos.set(cwd, found);
              }
              return found;
            },
          }),
        }),
    }),
    summary: policySummary({ allowedHosts: hosts }),
    hosts,
    release: () => session.release(),
  };
}

function agentSandbox(
  session: SandboxSession,
  agent: SandboxAgent,
  ctx: {
    home: string;
    env: NodeJS.ProcessEnv;
    options: RunOptions;
    configHosts: readonly string[];
    repo: (cwd: string) => Promise<RepoLocation | null>;
  },
): AgentSandbox {
  return {
    async wrap(program, args, workTree) {
      const repo = await ctx.repo(workTree);
      const gitDir = repo?.gitDir ?? `${workTree}/.git`;
      const gitCommonDir = repo?.gitCommonDir ?? gitDir;
      // Read-only paths must exist (bubblewrap binds over them): git's hooks folder is made.
      await mkdir(`${gitCommonDir}/hooks`, { recursive: true });
      // So must writable ones: the agent's state folders are made (as the agent would).
      for (const dir of agentStateFolders(agent, ctx.home, ctx.env)) {
        await mkdir(dir, { recursive: true });
      }
      return session.wrap([program, ...args], workTree, (tmpDir) =>
        existing(
          sandboxPolicy({
            agent,
            place: { home: ctx.home, workTree, gitDir, gitCommonDir, tmpDir },
            env: ctx.env,
            allowHosts: ctx.options.allowHosts,
            extraDenyRead: ctx.options.sandboxDenyRead,
            configHosts: ctx.configHosts,
          }),
        ),
      );
    },
  };
}

/** The API hosts the agent's config files name; a file that is not there names none. */
async function hostsOfConfig(files: readonly string[]): Promise<string[]> {
  const texts = await Promise.all(files.map((f) => readFile(f, 'utf8').catch(() => '')));
  return [...new Set(texts.flatMap((t) => configuredHosts(t)))];
}

/**
 * Read-only paths that do not exist are left out: bubblewrap would create an empty stand-in
 * inside the writable work tree. (Denied reads of missing paths are fine: nothing to read.)
 */
function existing(policy: SandboxPolicy): SandboxPolicy {
  return { ...policy, denyWrite: policy.denyWrite.filter((p) => existsSync(p)) };
}

/** A run's backends, each attempt's agent contained when the run is sandboxed. */
export function containedBackends<S>(
  backends: { backend: AgentBackend; backendFor: (slot: S) => AgentBackend },
  sandbox: RunSandbox | null,
): { backend: AgentBackend; backendFor: (slot: S) => AgentBackend } {
  if (sandbox === null) return backends;
  return {
    backend: sandbox.contain(backends.backend),
    backendFor: (slot) => sandbox.contain(backends.backendFor(slot)),
  };
}
