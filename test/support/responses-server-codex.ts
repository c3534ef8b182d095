// How to run the real Codex binary against the scripted Responses API server.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** The Codex binary installed as a dev dependency (a Node launcher of the native executable). */
export function codexBinPath(): string {
  return path.resolve('node_modules/.bin/codex');
}

/** The variable the scripted provider reads its key from (any value: the server ignores it). */
export const SCRIPTED_KEY_VARIABLE = 'RALPHTOOL_SCRIPTED_OPENAI_KEY';

/**
 * Writes `<dir>/codex/config.toml` pointing Codex at `baseUrl` and returns the environment of
 * one run, with `<dir>/home` as HOME. Codex's own retries are off (`request_max_retries`,
 * `stream_max_retries`; `streamRetries` sets the latter) so an error reaches ralphtool at once.
 * Codex creates everything else under CODEX_HOME itself (sessions, sqlite state).
 */
export function codexEnv(
  dir: string,
  baseUrl: string,
  options: { streamRetries?: number } = {},
): Record<string, string | undefined> {
  const codexHome = path.join(dir, 'codex');
  const home = path.join(dir, 'home');
  mkdirSync(codexHome, { recursive: true });
  mkdirSync(home, { recursive: true });
  writeFileSync(
    path.join(codexHome, 'config.toml'),
    [
      'model = "gpt-5"',
      'model_provider = "scripted"',
      '[model_providers.scripted]',
      'name = "scripted"',
      `base_url = "${baseUrl}"`,
      'wire_api = "responses"',
      `env_key = "${SCRIPTED_KEY_VARIABLE}"`,
      'request_max_retries = 0',
      `stream_max_retries = ${options.streamRetries ?? 0}`,
      '',
    ].join('\n'),
  );
  return {
    HOME: home,
    CODEX_HOME: codexHome,
    [SCRIPTED_KEY_VARIABLE]: 'sk-scripted-responses-server',
    RALPHTOOL_CODEX_BIN: codexBinPath(),
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    // An outer login or key must not be used instead of the scripted provider.
    OPENAI_API_KEY: undefined,
    CODEX_API_KEY: undefined,
    OPENAI_BASE_URL: undefined,
    // The shell tool runs git in the test repository: an outer git environment must not
    // redirect it elsewhere.
    GIT_DIR: undefined,
    GIT_WORK_TREE: undefined,
    GIT_INDEX_FILE: undefined,
  };
}
