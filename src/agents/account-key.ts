import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import path from 'node:path';

/**
 * The API-key variables each agent reads, first found wins; and where it keeps its login when
 * none is set (its config folder, the variable that moves it first).
 */
const LOGINS: Readonly<
  Record<
    string,
    { keys: readonly string[]; folder: (home: string, env: NodeJS.ProcessEnv) => string }
  >
> = {
  claude: {
    keys: ['ANTHROPIC_API_KEY', 'CLAUDE_CODE_OAUTH_TOKEN'],
    folder: (home, env) => env.CLAUDE_CONFIG_DIR ?? path.join(home, '.claude'),
  },
  codex: {
    keys: ['CODEX_API_KEY', 'OPENAI_API_KEY'],
    folder: (home, env) => env.CODEX_HOME ?? path.join(home, '.codex'),
  },
  gemini: {
    keys: ['GEMINI_API_KEY', 'GOOGLE_API_KEY'],
    folder: (home, env) => path.join(env.GEMINI_CLI_HOME ?? home, '.gemini'),
  },
  opencode: {
    keys: [],
    folder: (home, env) =>
      path.join(env.XDG_DATA_HOME ?? path.join(home, '.local', 'share'), 'opencode'),
  },
};

/**
 * The key of the account an agent runs on (docs/contract.md, "One account, many runs"): the
 * agent kind and 12 hex digits of a SHA-256 of what identifies its login without revealing it —
 * the API key or token in the environment when one is set, else the path of the agent's config
 * folder (its login lives there). `claude-3f9a0c12be47`. Runs with the same key share a window.
 */
export function accountKey(agent: string, env: NodeJS.ProcessEnv): string {
  const login = LOGINS[agent];
  const home = env.HOME !== undefined && env.HOME !== '' ? env.HOME : homedir();
  const key = login?.keys.map((name) => env[name] ?? '').find((value) => value !== '');
  const identity =
    key !== undefined ? `key:${key}` : `dir:${path.resolve(login?.folder(home, env) ?? home)}`;
  const digest = createHash('sha256').update(`${agent}\n${identity}`).digest('hex');
  return `${agent}-${digest.slice(0, 12)}`;
}
