import { readFileSync } from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import { RuntimeError } from '../core/errors.js';
import { execProgram, SHORT_ANSWER_MAX_BUFFER } from '../process/exec.js';
import { ProcessError } from '../process/process-error.js';
import type { AgentName } from './index.js';
import { findProgram } from './preflight.js';
import { vendorProgram } from './programs.js';

/** What the agent's own CLI says about its credentials. */
export type AgentLogin =
  | { kind: 'logged-in'; how: string }
  | { kind: 'logged-out'; fix: string }
  /** Not asked (no status command, or one it does not decide) or no clear answer. */
  | { kind: 'unknown' };

/** Limit for a status command: it reads local files only. */
const STATUS_TIMEOUT_MS = 15_000;

/**
 * Asks the vendor CLI whether it can authenticate, the way it would for a run (same program,
 * same environment): Claude Code's `claude auth status` (JSON; it knows every source: an API key
 * or token in the environment, its OAuth login, the keychain, an apiKeyHelper, Bedrock/Vertex)
 * and Codex's `codex login status` (only for OpenAI itself: a configured `model_provider` or a
 * key in the environment is not what it reports on). OpenCode and Gemini CLI have no such
 * command: unknown. Any answer that is not a clear "no" is unknown, never a refusal.
 */
export async function agentLogin(
  agent: AgentName,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<AgentLogin> {
  if (agent !== 'claude' && agent !== 'codex') return { kind: 'unknown' };
  const program = findProgram(vendorProgram(agent, env).program, env, cwd);
  if (program === null) return { kind: 'unknown' };
  const args = agent === 'claude' ? ['auth', 'status'] : ['login', 'status'];
  const result = await execProgram(program, args, {
    cwd,
    baseEnv: env,
    timeoutMs: STATUS_TIMEOUT_MS,
    maxBuffer: SHORT_ANSWER_MAX_BUFFER,
    // "Not logged in" is an exit 1: the failure carries the answer.
  }).catch((error: unknown) => (error instanceof ProcessError ? error : null));
  if (
    result === null ||
    result.timedOut ||
    result.spawnError !== null ||
    result.outputTooLarge === true
  )
    return { kind: 'unknown' };
  return agent === 'claude'
    ? claudeAnswer(result.stdout)
    : codexAnswer(result.exitCode, `${result.stdout}\n${result.stderr}`, env);
}

function claudeAnswer(stdout: string): AgentLogin {
  let status: unknown;
  try {
    status = JSON.parse(stdout);
  } catch {
    return { kind: 'unknown' };
  }
  if (typeof status !== 'object' || status === null) return { kind: 'unknown' };
  const { loggedIn, authMethod } = status as { loggedIn?: unknown; authMethod?: unknown };
  if (loggedIn === true) {
    return { kind: 'logged-in', how: typeof authMethod === 'string' ? authMethod : 'yes' };
  }
  if (loggedIn !== false) return { kind: 'unknown' };
  return {
    kind: 'logged-out',
    fix: 'log in with `claude auth login` (or run `claude` once and /login), or set ANTHROPIC_API_KEY',
  };
}

/**
 * `codex login status` exits 0 when it has credentials ("Logged in using ChatGPT", "API key
 * configured - sk-…") and 1 with "Not logged in"; its own warnings come first on stderr.
 */
function codexAnswer(exitCode: number | null, output: string, env: NodeJS.ProcessEnv): AgentLogin {
  const lines = output.split('\n').map((l) => l.trim());
  if (exitCode === 0) {
    const how = lines.find((l) => l !== '' && !l.startsWith('WARNING')) ?? 'yes';
    return { kind: 'logged-in', how: how.replace(/ - .*$/, '') };
  }
  if (!lines.some((l) => /^not logged in/i.test(l))) return { kind: 'unknown' };
  // A key in the environment or a provider of its own: `login status` does not speak for those.
  if ((env.OPENAI_API_KEY ?? '') !== '' || (env.CODEX_API_KEY ?? '') !== '') {
    return { kind: 'unknown' };
  }
  if (ownProvider(env)) return { kind: 'unknown' };
  return {
    kind: 'logged-out',
    fix: 'log in with `codex login` (or `printenv OPENAI_API_KEY | codex login --with-api-key`)',
  };
}

/** `model_provider = …` in Codex's config: its provider and credentials are its own. */
function ownProvider(env: NodeJS.ProcessEnv): boolean {
  const home = env.CODEX_HOME ?? path.join(env.HOME ?? homedir(), '.codex');
  try {
    return /^\s*model_provider\s*=/m.test(readFileSync(path.join(home, 'config.toml'), 'utf8'));
  } catch {
    return false;
  }
}

/**
 * Before a run changes anything: an agent whose CLI says plainly that it is not logged in would
 * fail every attempt, so the run is refused (exit 1) with the way to log in.
 */
export async function assertAgentLoggedIn(
  agent: AgentName,
  env: NodeJS.ProcessEnv,
  cwd: string,
): Promise<void> {
  const login = await agentLogin(agent, env, cwd);
  if (login.kind !== 'logged-out') return;
  throw new RuntimeError(
    `${agent} is not logged in, so every attempt would fail: ${login.fix}, then start again`,
  );
}
